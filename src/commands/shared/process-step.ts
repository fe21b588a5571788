// `mpay deposit process` and `mpay withdraw process`: the processed step (with the one-time code on
// withdraw) of a transaction, by its hash token or the reference of one mpay started.
import type { PaymentKind } from '../../api/enums.js';
import type { Factory } from '../../factory.js';
import type { FlowInputs } from '../../flows/types.js';
import { fitWidth, printResult } from '../../ui/print.js';
import { fromFlowResult } from '../../ui/envelope.js';
import { transactionSummary } from '../../ui/summary.js';
import { reportingInterrupt } from './interrupt.js';
import { otpFrom } from './payment.js';

export interface ProcessOptions {
  json?: boolean;
  dryRun?: boolean;
  /** hash token, or the reference of a transaction in the journal */
  key: string;
  otpStdin?: boolean;
  inputs: FlowInputs;
}

export async function runProcess(kind: PaymentKind, opts: ProcessOptions, f: Factory): Promise<void> {
  const { processStage } = await import('../../flows/payment.js');
  const { stepTarget } = await import('../../flows/single-step.js');
  const inputs = { ...opts.inputs, otp: await otpFrom(opts, f) };
  const flowDeps = await f.flowDeps({ dryRun: opts.dryRun, command: `mpay ${kind}` });
  const { record, deps } = stepTarget(opts.key, kind, flowDeps, f.now());
  const result = await reportingInterrupt(
    f,
    () => deps.journal,
    () => processStage(record, inputs, deps),
  );
  const out = fromFlowResult(result, record);
  await printResult(f.io, opts.json, out, () => transactionSummary(out, {}, fitWidth(f.io)));
}
