// `mpay deposit`: the whole flow (flows/payment/payment.ts), or --resume (flows/payment/resume.ts).
import type { Factory } from '../../factory.js';
import { runFlow, type FlowRunOptions } from '../../flows/payment/payment-run.js';
import { flowSide } from '../shared/flow-run.js';

export interface DepositOptions extends FlowRunOptions {
  /** pick up a stopped flow (hash token or reference) */
  resume?: string;
}

export async function runDeposit(opts: DepositOptions, f: Factory): Promise<void> {
  const { runPaymentFlow } = await import('../../flows/payment/payment.js');
  const { resumeFlow } = await import('../../flows/payment/resume.js');
  const { resume, inputs } = opts;
  await runFlow('deposit', opts, flowSide(f), async (deps) => ({
    result: await (resume
      ? resumeFlow('deposit', resume, inputs, deps)
      : runPaymentFlow('deposit', inputs, deps)),
  }));
}
