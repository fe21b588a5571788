// `mpay run FILE…`: scenario files (docs/scenarios.md) read and checked whole before anything is sent,
// the live rules applied once for the run, then each step run in this process (step-exec.ts) through the
// run's one Factory and money gate; a line a step, --json, --ndjson, and JUnit or TAP reports.
import { exitCodes, scenarioFailedExitCode } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import type { CommandTable } from '../../flows/scenario/scenario-check.js';
import { heapBound } from '../../flows/batch/heap-bound.js';
import { prepareRun, startLine } from '../../flows/scenario/prepare.js';
import { document, scrubbed } from '../../flows/scenario/run-document.js';
import { recordsWhenStopped, runScenarios, type StepRecord } from '../../flows/scenario/scenario-run.js';
import { jsonText } from '../../ui/output.js';
import { tellOutputFailures } from '../../ui/output-failures.js';
import { scenarioProgress } from '../../ui/scenario-progress.js';
import {
  count,
  newTally,
  openReports,
  reportTargets,
  stepLines,
  summaryLine,
} from '../../ui/scenario-report.js';
import type { Host } from '../base/base-command.js';
import { stepExecutor } from './step-exec.js';

export interface RunOptions {
  files: string[];
  vars?: string[];
  varsFile?: string;
  /** --otp-stdin: the one-time code, \${otp}, read from stdin */
  otpStdin?: boolean;
  /** stop every step after the first that fails; else (--keep-going, the default) the others run */
  failFast?: boolean;
  json?: boolean;
  ndjson?: boolean;
  reports?: string[];
  /** the commands of this mpay: what validation knows of them, and how a step runs one in-process */
  commands: { info: CommandTable; run: (id: string, argv: string[], host: Host) => Promise<void> };
}

export async function runRun(opts: RunOptions, f: Factory): Promise<void> {
  const reports = reportTargets(opts.reports);
  const { runs, late, ctx } = await prepareRun(opts, f);
  const scenarios = runs.map((r) => r.scenario);
  if (opts.ndjson) f.io.ndjson = true;
  const query = f.io.query === undefined ? undefined : (await import('../../ui/query.js')).applyQuery;
  const jsonOut = (doc: unknown) => f.io.out(jsonText(query ? query(f.io.query!, doc) : doc));
  // Every report opened before the first step: a path it may not write is exit 2, nothing sent.
  const writers = openReports(
    reports,
    scenarios.map((s) => ({ file: s.file, steps: s.steps.length })),
    f.outputs,
  );
  const progress = scenarioProgress(f.io, startLine(scenarios, ctx, opts.failFast));
  let file: string | undefined;
  // What the run keeps of its steps: their counts, and the records only for --json's one document; the
  // lines, --ndjson and the reports take each record as it ends (memory does not grow with the steps).
  const tally = newTally();
  const kept: StepRecord[] | undefined = opts.json ? [] : undefined;
  let inFlight: StepRecord | undefined;
  const keep = (r: StepRecord) => {
    count(tally, r);
    kept?.push(r);
    for (const w of writers) w.add(r);
  };
  const show = (shown: StepRecord) => {
    progress.clear();
    keep(shown);
    if (opts.ndjson) f.io.out(JSON.stringify(shown));
    else if (!opts.json) for (const line of stepLines(shown, file)) f.io.say(line);
    file = shown.file;
  };
  // The end of a run, whole or interrupted: the reports completed, the document or the count, the exit
  // code. A report that could not be written after steps were sent is exit 15, never 2: the results are
  // on stdout all the same.
  const finish = (interrupted: boolean) => {
    progress.clear();
    for (const w of writers) w.end(interrupted);
    if (kept) jsonOut(document(runs, kept, tally, interrupted));
    else if (!opts.ndjson) f.io.say(summaryLine(tally, interrupted));
    else if (interrupted) f.io.note(summaryLine(tally, interrupted));
    if (interrupted) f.io.exitCode = exitCodes.cancelled;
    else if (tally.failed) f.io.exitCode = scenarioFailedExitCode;
    // told here too: a second Ctrl-C ends the process before the command's end would tell it
    tellOutputFailures(f.io, f.outputs);
  };
  // Ctrl-C: the step in flight finishes (its answer journaled), no step starts after it, and the run ends
  // as a run does, its reports written, with 130. A second Ctrl-C ends it at once: the step in flight is
  // marked interrupted, the others not run, the reports written all the same.
  const { signal } = f.io.interrupts;
  const onAbort = () => {
    progress.interrupted();
    f.io.note(
      `mpay: interrupted: ${inFlight ? `step ${inFlight.index} (${inFlight.step}) finishes, ` : ''}no step starts after it (Ctrl-C again to stop now)`,
    );
  };
  signal.addEventListener('abort', onAbort, { once: true });
  let stoppedNow = false;
  const collect = heapBound(48);
  let stepsEnded = 0;
  const stopNow = () => {
    stoppedNow = true;
    progress.interrupted();
    let first = true;
    for (const r of recordsWhenStopped(runs, tally.steps, inFlight)) {
      if (first) show(r);
      else keep(r);
      first = false;
    }
    f.io.note('mpay: interrupted again, stopped at once');
    finish(true);
  };
  try {
    await f.io.interrupts.graceful(
      () =>
        runScenarios(runs, stepExecutor(f, opts.commands.run), {
          failFast: opts.failFast,
          signal,
          late,
          now: f.now,
          starting: (r) => {
            inFlight = r;
            progress.starting(r);
          },
          emit: (r) => {
            inFlight = undefined;
            if (!stoppedNow) show(scrubbed(r, f));
            // the steps' garbage collected before the heap grows past a bound (flows/batch/heap-bound.ts): looked
            // at every 50 steps, since a scenario's own heap sits near the bound and a full collection after
            // every step cost more than the steps themselves (10,000 steps: 53 of their 63 minutes)
            if (++stepsEnded % 50 === 0) collect();
          },
        }),
      stopNow,
    );
  } catch (err) {
    // a failure of mpay's own mid-run: the reports closed with what ran, then the error
    for (const w of writers) w.end(true);
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (!stoppedNow) finish(signal.aborted);
}
