// `mpay status KEY --status S`: the status update of a transaction, by its hash token or the reference of
// one mpay started.
import type { TransactionStatus } from '../../api/enums.js';
import type { Factory } from '../../factory.js';
import { fitWidth, printResult } from '../../ui/print.js';
import { stepEnvelope } from '../../ui/envelope.js';
import { transactionSummary } from '../../ui/summary.js';

export interface StatusOptions {
  json?: boolean;
  dryRun?: boolean;
  /** hash token, or the reference of a transaction in the journal */
  key: string;
  status: TransactionStatus;
  /** --gateway, checked: else the journal's */
  gateway?: number;
}

export async function runStatus(opts: StatusOptions, f: Factory): Promise<void> {
  const { statusStep } = await import('../../flows/payment/steps.js');
  const { stepTarget, stepGateway } = await import('../../flows/payment/single-step.js');
  const flowDeps = await f.flowDeps({ dryRun: opts.dryRun, command: 'mpay' });
  const { record, deps } = stepTarget(opts.key, undefined, flowDeps, f.now());
  const gateway = stepGateway(record, opts.gateway);
  const r = await statusStep(record, record.hash_token!, gateway, opts.status, deps);
  const out = stepEnvelope(record, gateway, { status: r.status, status_update: r });
  await printResult(f.io, opts.json, out, () => transactionSummary(out, {}, fitWidth(f.io)));
}
