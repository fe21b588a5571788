// `mpay history prune`: removes old records from the journal.
import { UsageError } from '../../../common/errors.js';
import type { Factory } from '../../../factory.js';
import { settled, type JournalRecord } from '../../../journal/records.js';
import { printResult } from '../../../ui/print.js';
import { parseWhen } from '../../../common/when.js';
import { keepYoungGenerationSmall } from '../../../flows/batch/heap-bound.js';

export interface PruneOptions {
  json?: boolean;
  /** a duration: records last changed longer ago than this go */
  olderThan?: string;
  /** a date or ISO time: records last changed before it go */
  before?: string;
  dryRun?: boolean;
}

/**
 * `mpay history prune`: removes settled transactions last changed before a moment. Records still in
 * progress stay, whatever their age: they are what --resume needs.
 */
export async function runHistoryPrune(opts: PruneOptions, f: Factory): Promise<void> {
  if ((opts.olderThan === undefined) === (opts.before === undefined))
    throw new UsageError('Give one of --older-than or --before', {
      hint: 'e.g. --older-than 90d, or --before 2026-01-01',
    });
  if (opts.olderThan !== undefined && !/^\d+\s*[smhdw]$/.test(opts.olderThan.trim()))
    throw new UsageError(`Invalid --older-than "${opts.olderThan}"`, { hint: 'A duration: 90d, 12w, 36h' });
  const cutoff =
    opts.olderThan !== undefined
      ? parseWhen(opts.olderThan, '--older-than', f.now())
      : parseWhen(opts.before!, '--before', f.now());
  const journal = await f.journal();
  keepYoungGenerationSmall();
  const drop = (r: JournalRecord) => settled(r) && Date.parse(r.updated_at) < cutoff;
  // One read back through the journal picks what goes and counts what stays.
  let total = 0;
  let inProgress = 0;
  const dropped = new Set<string>();
  for (const r of journal.newest()) {
    total++;
    if (!settled(r)) inProgress++;
    if (drop(r)) dropped.add(r.reference);
  }
  const removed = opts.dryRun ? [...dropped] : journal.pruneReferences(dropped);
  const kept = total - removed.length;
  await printResult(
    f.io,
    opts.json,
    { removed, kept, in_progress_kept: inProgress, dry_run: Boolean(opts.dryRun), file: journal.file },
    () =>
      `${opts.dryRun ? 'Would remove' : 'Removed'} ${removed.length} settled transaction${removed.length === 1 ? '' : 's'} from ${journal.file}; ${kept} kept (${inProgress} still in progress).`,
  );
}
