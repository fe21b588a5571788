// `mpay wallet KEY`: the crypto wallet address update of a transaction, by its hash token or the
// reference of one mpay started.
import type { Factory } from '../../factory.js';
import { fitWidth, printResult } from '../../ui/print.js';
import { stepEnvelope } from '../../ui/envelope.js';
import { transactionSummary } from '../../ui/summary.js';

export interface WalletOptions {
  json?: boolean;
  dryRun?: boolean;
  /** hash token, or the reference of a transaction in the journal */
  key: string;
  /** --gateway, checked: else the journal's */
  gateway?: number;
}

export async function runWallet(opts: WalletOptions, f: Factory): Promise<void> {
  const { walletStep } = await import('../../flows/payment/steps.js');
  const { stepTarget, stepGateway, walletGatewayIsCrypto } =
    await import('../../flows/payment/single-step.js');
  const flowDeps = await f.flowDeps({ dryRun: opts.dryRun, command: 'mpay' });
  const { record, deps } = stepTarget(opts.key, undefined, flowDeps, f.now());
  const gatewayId = stepGateway(record, opts.gateway);
  const w = await walletStep(record, record.hash_token!, gatewayId, deps);
  // The wallet update leaves the status as it was: initiated, the only status it accepts.
  const out = stepEnvelope(record, gatewayId, { status: 'initiated', wallet: w });
  await printResult(f.io, opts.json, out, async () => {
    // A QR code for a crypto gateway; its record is read only where a QR code can be shown.
    if (f.io.stderrIsTTY && (await walletGatewayIsCrypto(deps, gatewayId)))
      await deps.reporter?.address(w.wallet_address, true);
    return transactionSummary(out, { network: w.network, coin: w.code }, fitWidth(f.io));
  });
}
