// `mpay deposit process KEY`: the processed step of a deposit, by its hash token or the reference of one
// mpay started (flows/payment/single-step.ts processByKey).
import type { Factory } from '../../../factory.js';
import { runFlow, type FlowRunOptions } from '../../../flows/payment/payment-run.js';
import { flowSide } from '../../shared/flow-run.js';

export interface DepositProcessOptions extends Omit<FlowRunOptions, 'force'> {
  /** hash token, or the reference of a transaction in the journal */
  key: string;
}

export async function runDepositProcess(opts: DepositProcessOptions, f: Factory): Promise<void> {
  const { processByKey } = await import('../../../flows/payment/single-step.js');
  await runFlow('deposit', opts, flowSide(f), (deps) =>
    processByKey(opts.key, 'deposit', opts.inputs, deps, f.now()),
  );
}
