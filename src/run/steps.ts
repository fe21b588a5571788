// The single steps on an initiated transaction: `mpay deposit/withdraw process`, `mpay status`,
// `mpay wallet`. Each takes a hash token, or the reference of a transaction mpay started.
import type { PaymentKind, TransactionStatus } from '../api/enums.js';
import { UsageError } from '../api/errors.js';
import type { Factory } from '../factory.js';
import { checked, fields } from '../flows/inputs.js';
import type { FlowDeps, FlowInputs, FlowResult } from '../flows/types.js';
import { NullJournal } from '../journal/journal.js';
import type { JournalRecord } from '../journal/records.js';
import { fitWidth, printResult } from '../ui/print.js';
import { fromFlowResult } from '../ui/envelope.js';
import { transactionSummary } from '../ui/summary.js';
import { reportingInterrupt } from './interrupt.js';
import { otpFrom } from './payment.js';

interface StepOptions {
  json?: boolean;
  dryRun?: boolean;
  /** hash token, or the reference of a transaction in the journal */
  key: string;
}

/**
 * The journal's record of a hash token or reference, with the dependencies to run its steps. A transaction
 * mpay did not start gets a bare record and a NullJournal: the journal holds only what mpay started, so
 * its steps go unrecorded (and are still confirmed in live).
 */
async function lookup(
  key: string,
  kind: PaymentKind | undefined,
  deps: FlowDeps,
  f: Factory,
): Promise<{ record: JournalRecord; deps: FlowDeps }> {
  const found = deps.journal.find(key);
  if (found) {
    if (kind && found.kind !== kind) throw new UsageError(`${key} is a ${found.kind}, not a ${kind}`);
    return { record: found, deps };
  }
  const hash = checked(fields.hashToken, key);
  const now = f.now().toISOString();
  return {
    record: {
      reference: hash,
      kind: kind ?? 'deposit',
      hash_token: hash,
      created_at: now,
      updated_at: now,
      steps: [],
    },
    deps: { ...deps, journal: new NullJournal() },
  };
}

/** --gateway, else the gateway the journal recorded, else a usage error. */
function gatewayFor(record: JournalRecord, flag: string | undefined): number {
  const gateway = flag ?? (record.gateway_id === undefined ? undefined : String(record.gateway_id));
  if (!gateway) {
    throw new UsageError('Missing --gateway', {
      fields: { gateway_id: ['required'] },
      hint: 'The journal has no gateway for this transaction',
    });
  }
  return Number(checked(fields.gateway, gateway));
}

/** The envelope of a single step on a transaction: its record, the gateway used, and what the step returned. */
function stepEnvelope(
  record: JournalRecord,
  gateway: number,
  part: Pick<FlowResult, 'status' | 'status_update' | 'wallet'>,
) {
  return fromFlowResult(
    {
      kind: record.kind,
      reference: record.reference,
      hash_token: record.hash_token,
      gateway: { id: gateway, name: record.gateway_name ?? String(gateway) },
      ...part,
    },
    record,
  );
}

export interface ProcessOptions extends StepOptions {
  otpStdin?: boolean;
  inputs: FlowInputs;
}

export async function runProcess(kind: PaymentKind, opts: ProcessOptions, f: Factory): Promise<void> {
  const { processStage } = await import('../flows/payment.js');
  const inputs = { ...opts.inputs, otp: await otpFrom(opts, f) };
  const { record, deps } = await lookup(
    opts.key,
    kind,
    await f.flowDeps({ dryRun: opts.dryRun, command: `mpay ${kind}` }),
    f,
  );
  const result = await reportingInterrupt(
    f,
    () => deps.journal,
    () => processStage(record, inputs, deps),
  );
  const out = fromFlowResult(result, record);
  await printResult(f.io, opts.json, out, () => transactionSummary(out, {}, fitWidth(f.io)));
}

export async function runStatus(
  opts: StepOptions & { status: TransactionStatus; gateway?: string },
  f: Factory,
): Promise<void> {
  const { statusStep } = await import('../flows/steps.js');
  const { record, deps } = await lookup(
    opts.key,
    undefined,
    await f.flowDeps({ dryRun: opts.dryRun, command: 'mpay' }),
    f,
  );
  const gateway = gatewayFor(record, opts.gateway);
  const r = await statusStep(record, record.hash_token!, gateway, opts.status, deps);
  const out = stepEnvelope(record, gateway, { status: r.status, status_update: r });
  await printResult(f.io, opts.json, out, () => transactionSummary(out, {}, fitWidth(f.io)));
}

export async function runWallet(opts: StepOptions & { gateway?: string }, f: Factory): Promise<void> {
  const { walletStep } = await import('../flows/steps.js');
  const { isCrypto } = await import('../flows/wallet-rule.js');
  const { record, deps } = await lookup(
    opts.key,
    undefined,
    await f.flowDeps({ dryRun: opts.dryRun, command: 'mpay' }),
    f,
  );
  const gatewayId = gatewayFor(record, opts.gateway);
  const w = await walletStep(record, record.hash_token!, gatewayId, deps);
  // The wallet update leaves the status as it was: initiated, the only status it accepts.
  const out = stepEnvelope(record, gatewayId, { status: 'initiated', wallet: w });
  await printResult(f.io, opts.json, out, async () => {
    // A QR code for a crypto gateway, decided from its record as the flows decide it; the record is read
    // only where a QR code can be shown.
    if (f.io.stderrIsTTY) {
      const list = await deps.client.merchantCurrencies().catch(() => []);
      const gw = list
        .flatMap((c) => c.getway_configuration ?? [])
        .find((c) => Number(c.gateway.id) === gatewayId);
      if (gw) await deps.reporter?.address(w.wallet_address, isCrypto(gw.gateway));
    }
    return transactionSummary(out, { network: w.network, coin: w.code }, fitWidth(f.io));
  });
}
