// `mpay withdraw batch confirm FILE`: withdrawals of a batch finished with their one-time codes
// (flows/batch/payment-batch.ts runConfirmBatch), run by flows/batch/batch-run.ts and
// shown through commands/shared/batch-io.ts.
import type { Factory } from '../../../../factory.js';
import { runBatchCommand, type BatchOptions } from '../../../../flows/batch/batch-run.js';
import { batchSide } from '../../../shared/batch-io.js';

export type ConfirmOptions = BatchOptions;

export async function runConfirm(opts: ConfirmOptions, f: Factory): Promise<void> {
  const { runConfirmBatch } = await import('../../../../flows/batch/payment-batch.js');
  const how = { words: ['mpay', 'withdraw', 'batch', 'confirm'], command: 'mpay withdraw' };
  await runBatchCommand(opts, batchSide(f), how, (input, deps, view) =>
    runConfirmBatch(input, opts, deps, view),
  );
}
