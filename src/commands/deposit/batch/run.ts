// `mpay deposit batch FILE`: the batch flow of deposits (flows/batch/payment-batch.ts), run by
// flows/batch/batch-run.ts and shown through commands/shared/batch-io.ts.
import type { Factory } from '../../../factory.js';
import { runBatchCommand, type BatchOptions } from '../../../flows/batch/batch-run.js';
import { batchSide } from '../../shared/batch-io.js';

export type DepositBatchOptions = BatchOptions;

export async function runDepositBatch(opts: DepositBatchOptions, f: Factory): Promise<void> {
  const { runPaymentBatch } = await import('../../../flows/batch/payment-batch.js');
  const how = { words: ['mpay', 'deposit', 'batch'], command: 'mpay deposit', newHere: opts.newBatch };
  await runBatchCommand(opts, batchSide(f), { ...how, force: opts.force }, async (input, deps, view) =>
    runPaymentBatch('deposit', input, opts, deps, await f.journal(), f.now(), view),
  );
}
