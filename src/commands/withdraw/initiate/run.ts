// `mpay withdraw initiate`: the initiate step alone (flows/payment/payment.ts initiateStage), and the command that
// picks the flow up from there.
import type { Factory } from '../../../factory.js';
import { runFlow, type FlowRunOptions } from '../../../flows/payment/payment-run.js';
import { flowSide } from '../../shared/flow-run.js';

export type WithdrawInitiateOptions = FlowRunOptions;

export async function runWithdrawInitiate(opts: WithdrawInitiateOptions, f: Factory): Promise<void> {
  const { initiateStage } = await import('../../../flows/payment/payment.js');
  await runFlow('withdraw', opts, flowSide(f), async (deps) => ({
    result: await initiateStage('withdraw', opts.inputs, deps),
    offerGateways: true,
  }));
}
