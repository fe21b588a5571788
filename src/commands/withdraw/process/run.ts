// `mpay withdraw process KEY`: the processed step of a withdrawal (the one-time code sent, then confirmed
// with it), by its hash token or the reference of one mpay started (flows/payment/single-step.ts processByKey).
import type { Factory } from '../../../factory.js';
import { runFlow, type FlowRunOptions } from '../../../flows/payment/payment-run.js';
import { otpFrom, flowSide } from '../../shared/flow-run.js';

export interface WithdrawProcessOptions extends Omit<FlowRunOptions, 'force'> {
  /** hash token, or the reference of a transaction in the journal */
  key: string;
  /** read the one-time code from stdin */
  otpStdin?: boolean;
}

export async function runWithdrawProcess(opts: WithdrawProcessOptions, f: Factory): Promise<void> {
  const { processByKey } = await import('../../../flows/payment/single-step.js');
  const inputs = { ...opts.inputs, otp: await otpFrom(opts, f) };
  await runFlow('withdraw', opts, flowSide(f), (deps) =>
    processByKey(opts.key, 'withdraw', inputs, deps, f.now()),
  );
}
