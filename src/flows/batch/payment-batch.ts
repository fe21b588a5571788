// The one flow of `mpay deposit batch FILE`, `mpay withdraw batch FILE` and `mpay withdraw batch confirm
// FILE`: the file read as a stream twice (once to check every row, once to run them), so that memory does
// not grow with the rows. Nothing is sent unless every row passes; a summary and one question come first;
// then the rows run under the batch's lock. A row sent before with another server, merchant or profile is
// refused unless --new-batch says that this file is a new batch here. The rows' checks and runs are
// batch-check.ts, batch-row.ts and batch-confirm.ts; what the person sees (the problems, the progress, the
// results, the exit code) is the command's, through a BatchView (flows/batch/batch-run.ts).
import { createHash } from 'node:crypto';
import type { PaymentKind } from '../../api/enums.js';
import { UsageError } from '../../common/errors.js';
import type { Held } from '../../journal/locks.js';
import type { JournalRecord, Place } from '../../journal/records.js';
import { BatchChecker, type BatchRow, type RowProblem } from './batch-check.js';
import { checkConfirmRow, confirmColumns, confirmRow } from './batch-confirm.js';
import { readRows } from './batch-file.js';
import { loadPhoneRules } from '../payment/phones.js';
import { runRow, type RowResult } from './batch-row.js';
import { title, type FlowDeps } from '../types.js';

/** The file a batch reads (stdin is spooled to one first), and how its rows are written. */
export interface BatchInput {
  path: string;
  format: 'csv' | 'ndjson';
  /** as the person gave it: the path, or - for stdin */
  name: string;
}

/** What a batch shows of itself, and how it runs its rows: the command's side. */
export interface BatchView {
  /** a line for the person running the batch */
  note(line: string): void;
  /** every problem at once, each with its row; nothing is sent (throws) */
  refuse(problems: RowProblem[], elsewhere?: Place): Promise<never>;
  /** runs the rows a few at a time under the batch's lock, reporting each result as it ends */
  run(
    rows: AsyncIterable<BatchRow>,
    total: number,
    runOne: (r: BatchRow) => Promise<RowResult>,
    lock: Held,
  ): Promise<void>;
}

export interface PaymentBatchOptions {
  dryRun?: boolean;
  force?: boolean;
  /** rows like ones sent in the last seven days under other references are sent again */
  allowRepeats?: boolean;
}

/** The rows' dependencies: the batch asked once (the run's gate remembers it), so no row asks or reports. */
function unattended(deps: FlowDeps): FlowDeps {
  return { ...deps, prompter: undefined, reporter: undefined };
}

/**
 * A batch of deposits or withdrawals. `journal` is the run's journal file whole (its records of every
 * place), for the weekly limits of this server's merchant.
 */
export async function runPaymentBatch(
  kind: PaymentKind,
  { path, format, name }: BatchInput,
  opts: PaymentBatchOptions,
  deps: FlowDeps,
  journal: { newest(o: { since?: number }): Iterable<JournalRecord> },
  now: Date,
  view: BatchView,
): Promise<void> {
  const currencies = await deps.client.merchantCurrencies();
  const week = now.getTime() - 7 * 86_400_000;
  // The weekly limits are the merchant's on this server: what was sent elsewhere does not count.
  // Read back from the journal's end for a week only.
  const recent = [...journal.newest({ since: week })].filter(
    (r) => !r.place || (r.place.server === deps.place!.server && r.place.merchant === deps.place!.merchant),
  );
  await loadPhoneRules();
  const checker = new BatchChecker(kind, currencies, recent, {
    force: opts.force,
    journal: deps.journal,
    allowRepeats: opts.allowRepeats,
  });
  for await (const r of readRows(path, format)) checker.check(r);
  checker.done();
  if (checker.count === 0) throw new UsageError(`No rows in ${name}`);
  if (checker.problems.length) await view.refuse(checker.problems, checker.elsewhere);
  const totals = [...checker.totals].map(
    ([code, t]) => `${t.rows} × ${code}: ${t.amount} (fees about ${Math.round(t.fees * 100) / 100} ${code})`,
  );
  view.note(
    `${checker.count} ${kind === 'deposit' ? 'deposit' : 'withdrawal'}${checker.count === 1 ? '' : 's'} in ${name}, ${deps.env} environment: ${totals.join('; ')}`,
  );
  // A run again: what it will not send as new, so that the question below counts what it will
  const fresh = checker.count - checker.known;
  if (checker.known)
    view.note(
      `${checker.known} of them mpay sent before: those done are skipped, those stopped are continued; ${fresh} new`,
    );
  if (opts.dryRun) {
    view.note('Dry run: every row passed its checks; nothing was sent.');
    return;
  }
  await deps.gate.pass({
    what: `${checker.count} ${title(kind)}s of ${[...checker.totals].map(([code, t]) => `${t.amount} ${code}`).join(' + ')} in all`,
    batch: {
      question: checker.known
        ? `Send the ${fresh} new ${title(kind)}s, and continue any of the ${checker.known} sent before that stopped`
        : `Send these ${checker.count} ${title(kind)}s`,
      rows: checker.count,
    },
  });
  const rowDeps = { ...unattended(deps), currencies };
  // One run of a batch at a time, by its references: a copy of the file (CRLF or not) is the same batch.
  const release = await deps.journal.hold(['batch', checker.digest()], `a batch of the rows of ${name}`);
  try {
    await view.run(readRows(path, format), checker.count, (r) => runRow(kind, r, rowDeps), release);
  } finally {
    await release();
  }
}

/** `mpay withdraw batch confirm FILE`: finishes withdrawals waiting for their codes (columns reference, otp). */
export async function runConfirmBatch(
  { path, format, name }: BatchInput,
  opts: { dryRun?: boolean },
  deps: FlowDeps,
  view: BatchView,
): Promise<void> {
  // The run's own journal: a code confirms a withdrawal only where it was made.
  const journal = deps.journal;
  const problems: RowProblem[] = [];
  const seen = new Map<string, number>();
  // The run's identity for its lock: its references in order, as a batch's (a copy of the file is the same).
  const identity = createHash('sha256');
  let count = 0;
  for await (const r of readRows(path, format, confirmColumns)) {
    count++;
    identity.update(`${r.values.reference?.trim() ?? ''}\n`);
    problems.push(...checkConfirmRow(r, journal, seen));
  }
  if (count === 0) throw new UsageError(`No rows in ${name}`);
  if (problems.length) await view.refuse(problems);
  view.note(`${count} withdrawals to confirm with their codes, ${deps.env} environment`);
  if (opts.dryRun) {
    view.note('Dry run: every row passed its checks; nothing was sent.');
    return;
  }
  await deps.gate.pass({
    what: `${count} withdrawals`,
    batch: { question: `Confirm these ${count} withdrawals`, rows: count },
  });
  // One read of the merchant's currencies for every row (a resumed withdrawal needs its gateway's record).
  const rowDeps = { ...unattended(deps), currencies: await deps.client.merchantCurrencies() };
  const release = await journal.hold(['confirm', identity.digest('hex')], `the confirmations of ${name}`);
  try {
    await view.run(
      readRows(path, format, confirmColumns),
      count,
      (r) => confirmRow(r, rowDeps, name),
      release,
    );
  } finally {
    await release();
  }
}
