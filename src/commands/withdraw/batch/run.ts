// `mpay withdraw batch FILE`: the batch flow of withdrawals (flows/batch/payment-batch.ts), run by
// flows/batch/batch-run.ts and shown through commands/shared/batch-io.ts. Their codes come later:
// `mpay withdraw batch confirm` (confirm/run.ts).
import type { Factory } from '../../../factory.js';
import { runBatchCommand, type BatchOptions } from '../../../flows/batch/batch-run.js';
import { batchSide } from '../../shared/batch-io.js';

export type WithdrawBatchOptions = BatchOptions;

export async function runWithdrawBatch(opts: WithdrawBatchOptions, f: Factory): Promise<void> {
  const { runPaymentBatch } = await import('../../../flows/batch/payment-batch.js');
  const how = { words: ['mpay', 'withdraw', 'batch'], command: 'mpay withdraw', newHere: opts.newBatch };
  await runBatchCommand(opts, batchSide(f), { ...how, force: opts.force }, async (input, deps, view) =>
    runPaymentBatch('withdraw', input, opts, deps, await f.journal(), f.now(), view),
  );
}
