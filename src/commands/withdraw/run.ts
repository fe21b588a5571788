// `mpay withdraw`: the whole flow (flows/payment/payment.ts), or --resume (flows/payment/resume.ts), its one-time code
// by --otp, asked on a terminal, or read from stdin (--otp-stdin).
import type { Factory } from '../../factory.js';
import { runFlow, type FlowRunOptions } from '../../flows/payment/payment-run.js';
import { otpFrom, flowSide } from '../shared/flow-run.js';

export interface WithdrawOptions extends FlowRunOptions {
  /** pick up a stopped flow (hash token or reference) */
  resume?: string;
  /** read the one-time code from stdin */
  otpStdin?: boolean;
}

export async function runWithdraw(opts: WithdrawOptions, f: Factory): Promise<void> {
  const { runPaymentFlow } = await import('../../flows/payment/payment.js');
  const { resumeFlow } = await import('../../flows/payment/resume.js');
  const { resume } = opts;
  const inputs = { ...opts.inputs, otp: await otpFrom(opts, f) };
  await runFlow('withdraw', opts, flowSide(f), async (deps) => ({
    result: await (resume
      ? resumeFlow('withdraw', resume, inputs, deps)
      : runPaymentFlow('withdraw', inputs, deps)),
  }));
}
