// What a batch command runs, for its flow (flows/batch/payment-batch.ts): the file, or stdin spooled to a
// private file; the problems of its rows (a table, or NDJSON with --json); the rows a few at a time with
// the progress, one result a row (NDJSON on stdout with --json, and --out), the pace after a 429
// (flows/batch/pace.ts) and Ctrl-C; its last lines and exit code: 0 when every row is done (a withdrawal
// waiting for its code counts as done), 10 when some failed or are unknown, 130 after Ctrl-C, 11 when
// another mpay process took the batch's lock. Each batch command's run.ts hands its flow to
// runBatchCommand with a BatchSide (commands/shared/batch-io.ts): the IO, the Factory's part, and how the
// progress, problems and results are drawn and written (ui/), none of which flows/ imports.
import { closeSync, openSync, statSync } from 'node:fs';
import { UsageError, exitCodes } from '../../common/errors.js';
import { commandLine } from '../../common/shell-words.js';
import type { Held } from '../../journal/locks.js';
import { placeArgs, type Place } from '../../journal/records.js';
import { repeatAdvice, type BatchRow, type RowProblem } from './batch-check.js';
import { runRows, type RowResult } from './batch-row.js';
import { heapBound } from './heap-bound.js';
import { runAgain } from '../standing.js';
import type { BatchInput, BatchView } from './payment-batch.js';
import { RowOrder } from './row-order.js';
import type { FlowDeps, FlowSettings } from '../types.js';
import { defaultConcurrency, maxConcurrency } from './concurrency.js';
import { BatchPace, type PaceProgress } from './pace.js';

export { defaultConcurrency, maxConcurrency } from './concurrency.js';

/** A line for a person: prose, or a labelled command line to paste (the IO's Text). */
type Line = string | { label: string; command: string };

/** The batch's progress as drawn (ui/batch-progress.ts): a row ended, a note above the bar, its end. */
export interface BatchProgressView extends PaceProgress {
  row(r: RowResult): void;
  note(line: Line): void;
  stop(): void;
}

/**
 * What a batch's run needs of the command that runs it (commands/shared/batch-io.ts makes it from the
 * Factory): the IO's part, the Factory's, the stdin spool, and the drawing and writing of ui/.
 */
export interface BatchSide {
  io: {
    ndjson?: boolean;
    exitCode: number;
    note(line: Line): void;
    /** a line of results on stdout (a record the --out file could not take) */
    out(line: string): void;
    interrupts: {
      signal: AbortSignal;
      graceful<T>(work: () => Promise<T>, again?: () => void): Promise<T>;
    };
  };
  flowDeps(opts: FlowSettings): Promise<FlowDeps>;
  /** the journal's folder (the spool sits in it) */
  journal(): Promise<{ dir: string }>;
  place(): Promise<Place>;
  /** stdin kept in a private file until the batch ends */
  spoolStdin(journalDir: string): Promise<{ path: string; remove(): void }>;
  progress(total: number): Promise<BatchProgressView>;
  /** a row's result as one NDJSON line on stdout */
  printRow(res: RowResult): Promise<void>;
  /** every problem with its row: a table, or NDJSON with --json */
  printProblems(problems: RowProblem[], json?: boolean): Promise<void>;
  /** the --out file */
  /**
   * the --out file, opened before the first row is sent; once a write fails (told to the run's outputs,
   * exit 15), each record goes to `instead`
   */
  openResults(
    path: string,
    instead: (res: RowResult) => void,
  ): { write(res: RowResult): void; end(): Promise<void> };
}

/** The exit code of a batch that ended with rows failed or unknown (README, exit codes). */
export const batchIncompleteExitCode = 10;

export interface BatchOptions {
  json?: boolean;
  file: string;
  format?: 'csv' | 'ndjson';
  concurrency: number;
  out?: string;
  dryRun?: boolean;
  force?: boolean;
  /** the rows of this file sent before elsewhere (another server, merchant or profile) are new here */
  newBatch?: boolean;
  /** rows like ones sent in the last seven days under other references are sent again */
  allowRepeats?: boolean;
}

/** How a batch command runs its flow: the words of its command line, and its run's settings. */
export interface BatchCommand {
  /** e.g. ['mpay', 'deposit', 'batch']: the run again adds the file and the flags */
  words: string[];
  /** the command the journal and the gate name */
  command: string;
  /** the rows of this file sent before elsewhere are new here (--new-batch) */
  newHere?: boolean;
  force?: boolean;
}

/**
 * A batch command's run of its flow (flows/batch/payment-batch.ts): its input, its pace made before its client,
 * and the BatchView through which the flow shows the problems, notes and rows.
 */
export async function runBatchCommand(
  opts: BatchOptions,
  f: BatchSide,
  how: BatchCommand,
  flow: (input: BatchInput, deps: FlowDeps, view: BatchView) => Promise<void>,
): Promise<void> {
  f.io.ndjson = true;
  const words = [...how.words, opts.file, ...batchFlagsAgain(opts)];
  let place: Place | undefined;
  let rowsRun = false;
  // Ctrl-C before any row starts (stdin still read, the rows checked): nothing was sent, and the run ends
  // at once (the IO), saying so with the counts and the command to run it again, as once the rows run
  // (runAndReport says its own then).
  const { signal } = f.io.interrupts;
  const early = () => {
    if (!rowsRun) reportEnd(f.io, noRows(), undefined, runAgain(words, place), opts.file, true);
  };
  signal.addEventListener('abort', early, { once: true });
  try {
    await withBatchInput(
      opts,
      f,
      (p) => (place = p),
      async (input) => {
        const pace = new BatchPace();
        const deps = await f.flowDeps({
          dryRun: opts.dryRun,
          force: how.force,
          command: how.command,
          newHere: how.newHere,
          pacer: pace.pacer,
          onThrottle: pace.onThrottle,
        });
        place = deps.place;
        await flow(input, deps, {
          note: (line) => f.io.note(line),
          refuse: (problems, elsewhere) => refuseProblems(problems, opts, f, elsewhere),
          run: (rows, total, runOne, lock) => {
            rowsRun = true;
            return runAndReport(rows, total, runOne, opts, f, { words, deps, pace, lock });
          },
        });
      },
    );
  } finally {
    signal.removeEventListener('abort', early);
  }
}

/** The flags of a batch that its run again must repeat (the place's are added by runAgain). */
function batchFlagsAgain(opts: BatchOptions): string[] {
  return [
    ...(opts.format ? ['--format', opts.format] : []),
    ...(opts.concurrency !== defaultConcurrency ? ['--concurrency', String(opts.concurrency)] : []),
    ...(opts.out ? ['--out', opts.out] : []),
    ...(opts.force ? ['--force'] : []),
    ...(opts.newBatch ? ['--new-batch'] : []),
    ...(opts.allowRepeats ? ['--allow-repeats'] : []),
    ...(opts.json ? ['--json'] : []),
  ];
}

/**
 * What both batch commands check of their options first, and the file to read: stdin is read once,
 * spooled to a private file (the side's spoolStdin: commands/shared/stdin-spool.ts), so that it can be checked, then run; the
 * file is removed when the batch ends, however it ends.
 */
async function withBatchInput(
  opts: BatchOptions,
  f: BatchSide,
  /** told where the batch runs once known, before stdin is read (what an early Ctrl-C prints names it) */
  at: (place: Place) => void,
  work: (input: BatchInput) => Promise<void>,
): Promise<void> {
  if (!(opts.concurrency >= 1 && opts.concurrency <= maxConcurrency))
    throw new UsageError(`--concurrency takes 1 to ${maxConcurrency}`);
  let path = opts.file;
  if (path !== '-') {
    try {
      // Read before anything else: a stream's error would come later, as an unhandled event.
      closeSync(openSync(path, 'r'));
      if (statSync(path).isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new UsageError(`Cannot read ${path} (${e.code ?? e.message})`, {
        hint: 'Give the path of a CSV or NDJSON file, or - for stdin',
      });
    }
  }
  let spooled: Awaited<ReturnType<BatchSide['spoolStdin']>> | undefined;
  if (path === '-') {
    const { dir } = await f.journal();
    at(await f.place());
    spooled = await f.spoolStdin(dir);
  }
  if (spooled) path = spooled.path;
  try {
    const format = opts.format ?? (/\.(nd)?jsonl?$/i.test(path) ? 'ndjson' : 'csv');
    await work({ path, format, name: opts.file });
  } finally {
    spooled?.remove();
  }
}

/** Every problem at once, with its row (a table, or NDJSON with --json), and nothing sent: exit 2. */
async function refuseProblems(
  problems: RowProblem[],
  opts: BatchOptions,
  f: BatchSide,
  /** where rows were sent before, when that is not here */
  elsewhere?: Place,
): Promise<never> {
  await f.printProblems(problems, opts.json);
  throw new UsageError(
    `${problems.length} problem${problems.length > 1 ? 's' : ''} in ${opts.file}; nothing was sent`,
    {
      hint: elsewhere
        ? `Rows of this file were sent before with ${commandLine(placeArgs(elsewhere))}: run it there to continue, or pass --new-batch to run it here as a new batch`
        : problems.some((p) => p.message.endsWith(repeatAdvice))
          ? 'Mend the rows named above, then run the same command again; rows like ones sent in the last seven days go with --allow-repeats'
          : 'Mend the rows named above, then run the same command again',
    },
  );
}

type Counts = Record<RowResult['outcome'], number>;
const noRows = (): Counts => ({ done: 0, skipped: 0, failed: 0, unknown: 0 });

/**
 * Runs the rows a few at a time and reports each result as it ends (a line on stderr, NDJSON on stdout
 * with --json, and --out in the file's row order). Fewer rows are in flight while the server answers
 * 429s. Ctrl-C stops the starting of new rows and exits 130 once those in flight ended; exit 10 when a row
 * failed or is unknown.
 */
async function runAndReport(
  rows: AsyncIterable<BatchRow>,
  total: number,
  run: (r: BatchRow) => Promise<RowResult>,
  opts: BatchOptions,
  f: BatchSide,
  again: { words: string[]; deps: FlowDeps; pace: BatchPace; lock: Held },
): Promise<void> {
  // Another mpay took over this batch's lock, or a row's (this one was stopped or paused past its stale
  // time): no new row starts; each row in flight stops before its next money step (the gate checks).
  let lost: string | undefined;
  const taken = () => {
    if (lost) return true;
    try {
      again.lock.check();
    } catch (err) {
      lost = (err as Error).message;
    }
    return Boolean(lost);
  };
  const progress = await f.progress(total);
  const resume = runAgain(again.words, again.deps.place);
  // Opened before the first row is sent; once it fails, the records go to stdout (where --json has them).
  const out = opts.out
    ? f.openResults(opts.out, (res) => {
        if (!opts.json) f.io.out(JSON.stringify(res));
      })
    : undefined;
  const order = out && new RowOrder<RowResult>((res) => out.write(res));
  const counts = noRows();
  /** the rows a person must do something about, for the closing lines */
  const fixes: RowResult[] = [];
  let printed = Promise.resolve();
  again.pace.reportTo(progress);
  // Ctrl-C (the IO's interruption): no new row starts, those in flight finish; a second one ends the run.
  const { signal } = f.io.interrupts;
  const onAbort = () =>
    progress.note('mpay: stopping: no new rows start; those in flight finish (Ctrl-C again to stop now)');
  signal.addEventListener('abort', onAbort, { once: true });
  // A second Ctrl-C: the run ends at once (the IO exits 130 after this), but the bar's line ends, and the
  // counts and the command to continue are printed; the rows in flight are unknown from now on.
  let started = 0;
  const stopNow = () => {
    progress.stop();
    const ended = counts.done + counts.skipped + counts.failed + counts.unknown;
    const inFlight = started - ended;
    f.io.note(
      `mpay: interrupted again, stopped at once: ${tallyOf(counts)}; ${inFlight} in flight, ${total - started} not started`,
    );
    if (inFlight)
      f.io.note(
        `The ${inFlight} row${inFlight === 1 ? '' : 's'} in flight had no answer: the next run reports ${inFlight === 1 ? 'it' : 'them'} as unknown and sends ${inFlight === 1 ? 'it' : 'them'} no more, until settled: it ends with what settles each (\`mpay history resolve REF --check\` first for an initiate, which asks the API) (a row still waiting its turn after a 429 was not sent: the next run sends it)`,
      );
    f.io.note({ label: 'Resume with: ', command: resume });
  };
  try {
    await f.io.interrupts.graceful(
      () =>
        runRows(
          rows,
          opts.concurrency,
          (r: BatchRow) => {
            started++;
            order?.start(r.row);
            return run(r);
          },
          (res: RowResult) => {
            if (res.outcome === 'unknown' && res.error?.kind === 'busy') lost ??= res.error.message;
            counts[res.outcome]++;
            if (res.fix) fixes.push(res);
            again.pace.rowEnded();
            progress.row(res);
            // one line a row, in the order the rows end; --query filters each record
            if (opts.json) printed = printed.then(() => f.printRow(res));
            order?.end(res);
          },
          () => signal.aborted || taken(),
          heapBound(32),
        ),
      stopNow,
    );
    await printed;
  } finally {
    progress.stop();
    signal.removeEventListener('abort', onAbort);
    order?.flush();
    await out?.end();
  }
  const paced = again.pace.summary();
  if (paced) f.io.note(paced);
  reportEnd(f.io, counts, total, resume, opts.file, signal.aborted, fixes);
  if (lost && !signal.aborted) {
    f.io.note(`mpay: ${lost}`);
    f.io.exitCode = exitCodes.busy;
  }
}

const tallyOf = (c: Counts) =>
  `${c.done} done, ${c.skipped} already done, ${c.failed} failed, ${c.unknown} unknown`;

/** The batch's last lines (the tally, and how to resume or run it again) and its exit code. */
function reportEnd(
  io: BatchSide['io'],
  counts: Counts,
  /** undefined before the rows were counted (a Ctrl-C while stdin is read) */
  total: number | undefined,
  resume: string,
  file: string,
  aborted: boolean,
  /** rows whose result says what a person must do first (a refused code, an unknown row) */
  fixes: RowResult[] = [],
): void {
  const ended = counts.done + counts.skipped + counts.failed + counts.unknown;
  const tally = tallyOf(counts);
  // Rows read from stdin come again the same way. The command is a line of its own, folded only as a
  // command (io.note of a label and a command), so that it pastes as printed.
  const stdin = file === '-' ? ' < FILE' : '';
  const fromStdin = () => file === '-' && io.note('  (FILE: the same rows, on stdin)');
  if (aborted) {
    io.note(
      total === undefined
        ? `mpay: interrupted before any row started: ${tally}; nothing was sent`
        : `mpay: interrupted: ${tally}; ${total - ended} not started`,
    );
    io.note({ label: 'Resume with: ', command: `${resume}${stdin}` });
    fromStdin();
    io.exitCode = exitCodes.cancelled;
    return;
  }
  io.note(tally);
  if (counts.failed || counts.unknown) {
    // What to fix first, row by row (a few; each row's own line above says the same)
    if (fixes.length) {
      io.note(
        fixes.length === 1 ? 'Before you run it again:' : `Before you run it again (${fixes.length} rows):`,
      );
      const shown = [...fixes].sort((a, b) => a.row - b.row).slice(0, maxFixesShown);
      for (const r of shown) io.note(`  row ${r.row} (${r.reference}): ${r.fix}`);
      if (fixes.length > shown.length)
        io.note(`  and ${fixes.length - shown.length} more: each one's line above, or its "fix" with --json`);
    }
    io.note({ label: 'Run again with: ', command: `${resume}${stdin}` });
    io.note(
      counts.unknown
        ? `  (done rows are skipped; failed ones are sent again as the file has them; the ${counts.unknown} unknown ${counts.unknown === 1 ? 'is' : 'are'} sent no more until settled as above: mpay will not guess whether the server applied ${counts.unknown === 1 ? 'it' : 'them'})`
        : '  (done rows are skipped; failed ones are sent again as the file has them)',
    );
    fromStdin();
    io.exitCode = batchIncompleteExitCode;
  }
}

/** How many rows' fixes the closing lines list; the rest are in each row's own line. */
const maxFixesShown = 10;
