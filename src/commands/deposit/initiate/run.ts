// `mpay deposit initiate`: the initiate step alone (flows/payment/payment.ts initiateStage), and the command that
// picks the flow up from there.
import type { Factory } from '../../../factory.js';
import { runFlow, type FlowRunOptions } from '../../../flows/payment/payment-run.js';
import { flowSide } from '../../shared/flow-run.js';

export type DepositInitiateOptions = FlowRunOptions;

export async function runDepositInitiate(opts: DepositInitiateOptions, f: Factory): Promise<void> {
  const { initiateStage } = await import('../../../flows/payment/payment.js');
  await runFlow('deposit', opts, flowSide(f), async (deps) => ({
    result: await initiateStage('deposit', opts.inputs, deps),
    offerGateways: true,
  }));
}
