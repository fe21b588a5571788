// `mpay deposit`: the whole flow (flows/payment.ts), or --resume (flows/resume.ts).
import type { Factory } from '../../factory.js';
import { runFlow, type FlowRunOptions } from '../../flows/payment/run.js';
import { flowSide } from '../shared/flow-run.js';

export interface DepositOptions extends FlowRunOptions {
  /** pick up a stopped flow (hash token or reference) */
  resume?: string;
}

export async function runDeposit(opts: DepositOptions, f: Factory): Promise<void> {
  const { runPaymentFlow } = await import('../../flows/payment.js');
  const { resumeFlow } = await import('../../flows/resume.js');
  const { resume, inputs } = opts;
  await runFlow('deposit', opts, flowSide(f), async (deps) => ({
    result: await (resume
      ? resumeFlow('deposit', resume, inputs, deps)
      : runPaymentFlow('deposit', inputs, deps)),
  }));
}
