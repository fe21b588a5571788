// `mpay run FILE…`: scenario files (docs/scenarios.md) read and checked whole before anything is sent,
// the live rules applied once for the run, then each step run in this process (step-exec.ts) through the
// run's one Factory and money gate; a line a step, --json, --ndjson, and JUnit or TAP reports.
import { judgeServer } from '../../config/live.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
import { UsageError, exitCodes, scenarioFailedExitCode } from '../../api/errors.js';
import { clearForOutput } from '../../api/out-file.js';
import { checkFileSize, inputBounds } from '../../api/input-bounds.js';
import type { Factory } from '../../factory.js';
import { checkScenario, isMoneyStep, runReference, type CommandTable } from '../../flows/scenario-check.js';
import { posText, readScenario, type Problem, type Scenario } from '../../flows/scenario-file.js';
import { heapBound } from '../../flows/heap-bound.js';
import { recordsWhenStopped, runScenarios, type StepRecord } from '../../flows/scenario-run.js';
import { freshReference, givenVars, startScope, withNames } from '../../flows/scenario-values.js';
import { jsonText } from '../../ui/output.js';
import { tellOutputFailures } from '../../ui/output-failures.js';
import { scenarioProgress } from '../../ui/scenario-progress.js';
import {
  count,
  newTally,
  openReports,
  stepLine,
  summaryLine,
  type ReportTarget,
  type Tally,
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
  const given = givenVars({ file: varsFile(opts.varsFile), environ: f.environ, flags: opts.vars });
  // each file read once (a large one is read a part at a time: flows/scenario-file.ts), checked below
  const read = opts.files.map((file) => readScenario(file, readText(file, 'the scenario')));
  const late = await oneTimeCode(opts, given, f, read);
  // Each file's run has a fresh reference of its own (two files, or one file twice, never share one), and
  // its steps' names substituted once, from its variables: the names the live question, the lines, the
  // records and the reports all show. A variable asked late is given, and left out of the scope until
  // the step that needs it.
  const runs = checkAll(opts.files, read, opts.commands.info, new Set([...given.keys(), ...late.keys()])).map(
    (s) => {
      const scope = startScope(s, given, freshReference(f.now()));
      for (const name of late.keys()) if (scope.get(name) === null) scope.delete(name);
      return { scenario: withNames(s, scope), scope };
    },
  );
  const scenarios = runs.map((r) => r.scenario);
  const ctx = await liveRules(scenarios, f);
  if (opts.ndjson) f.io.ndjson = true;
  const query = f.io.query === undefined ? undefined : (await import('../../ui/query.js')).applyQuery;
  const jsonOut = (doc: unknown) => f.io.out(jsonText(query ? query(f.io.query!, doc) : doc));
  // Every report opened before the first step: a path it may not write is exit 2, nothing sent.
  const writers = openReports(
    reports,
    scenarios.map((s) => ({ file: s.file, steps: s.steps.length })),
    f.outputs,
  );
  // the server as the live rule judges it, not the environment's name: a URL a profile keeps as live is live
  const verdict = judgeServer(ctx.baseUrl, ctx.env, (await f.store()).profiles());
  const progress = scenarioProgress(
    f.io,
    startLine(scenarios, { ...ctx, live: verdict.live }, opts.failFast),
  );
  let file: string | undefined;
  // What the run keeps of its steps: their counts, and the records only for --json's one document; the
  // lines, --ndjson and the reports take each record as it ends (memory does not grow with the steps).
  const tally = newTally();
  const kept: StepRecord[] | undefined = opts.json ? [] : undefined;
  let inFlight: StepRecord | undefined;
  const show = (shown: StepRecord) => {
    progress.clear();
    count(tally, shown);
    kept?.push(shown);
    for (const w of writers) w.add(shown);
    if (opts.ndjson) f.io.out(JSON.stringify(shown));
    else if (!opts.json) {
      // a line naming each file before its first step
      if (shown.file !== file) {
        file = shown.file;
        f.io.say(`# ${shown.scenario} (${shown.file})`);
      }
      f.io.say(stepLine(shown));
    }
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
    const ended = tally.steps;
    const cut = inFlight;
    let first = true;
    for (const r of recordsWhenStopped(runs, ended, cut)) {
      if (first) show(r);
      else {
        count(tally, r);
        kept?.push(r);
        for (const w of writers) w.add(r);
      }
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
            // the steps' garbage collected before the heap grows past a bound (flows/heap-bound.ts): looked
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

/** What runs, said before the first step: the files, their steps, the server, what a failed step does. */
function startLine(
  scenarios: Scenario[],
  ctx: { env: string; baseUrl: string; live: boolean },
  failFast?: boolean,
): string {
  const steps = scenarios.reduce((n, s) => n + s.steps.length, 0);
  const money = scenarios.reduce((n, s) => n + s.steps.filter(isMoneyStep).length, 0);
  const files = scenarios.length === 1 ? scenarios[0]!.file : `${scenarios.length} files`;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `mpay: running ${files}: ${plural(steps, 'step')}${money ? ` (${money} money)` : ''} against ${ctx.live ? `the live server ${ctx.baseUrl}` : `${ctx.env} (${ctx.baseUrl})`}; ${
    failFast
      ? '--fail-fast: a failed step stops the run'
      : '--keep-going: a failed step does not stop the others (a failed money step stops the money steps after it)'
  }`;
}

/**
 * A record as it is shown: what was sent, what came back and what was captured scrubbed of the run's
 * secrets (api/redact.ts); the file's own words (names, paths, checks) as written.
 */
function scrubbed(r: StepRecord, f: Factory): StepRecord {
  const v = (x: unknown) => f.secrets.value(x);
  return {
    ...r,
    sent: r.sent === undefined ? undefined : f.secrets.text(r.sent),
    result: v(r.result),
    captured: r.captured && (v(r.captured) as Record<string, unknown>),
    failures: r.failures.map((x) => ({ ...x, expected: v(x.expected), actual: v(x.actual) })),
  };
}

/** The --json document: the counts, and each file's run: its reference and its steps. */
function document(
  runs: { scenario: Scenario; scope: Map<string, unknown> }[],
  records: StepRecord[],
  t: Tally,
  interrupted: boolean,
) {
  let at = 0;
  return {
    ok: !interrupted && t.passed === t.steps,
    ...(interrupted ? { interrupted: true } : {}),
    passed: t.passed,
    failed: t.failed,
    ...(t.interrupted ? { interrupted_steps: t.interrupted } : {}),
    skipped: t.skipped,
    scenarios: runs.map(({ scenario: s, scope }) => {
      // the records are in the run's order, each file's steps together (a file given twice runs twice)
      const steps = records.slice(at, at + s.steps.length);
      at += s.steps.length;
      return { file: s.file, name: s.name, reference: scope.get(runReference), steps };
    }),
  };
}

function reportTargets(given: string[] | undefined): ReportTarget[] {
  const targets = (given ?? []).map((g) => {
    const m = /^(junit|tap)=(.+)$/.exec(g);
    if (!m) throw new UsageError(`Invalid --report "${g}": expected junit=FILE or tap=FILE`);
    return { format: m[1] as ReportTarget['format'], file: m[2]! };
  });
  const files = targets.map((t) => resolve(t.file));
  const twice = files.find((f, i) => files.indexOf(f) !== i);
  if (twice)
    throw new UsageError(`Two --report flags write ${twice}: the second would overwrite the first`, {
      hint: 'Give each report a file of its own',
    });
  // Checked as the flags are read (a link there, a folder it cannot write: exit 2), and a run that ends
  // before its reports are opened (a problem in a file, a refusal) leaves no report of an earlier run
  // behind for CI to publish as this one's. They are opened, anew, just before the first step.
  for (const t of targets) clearForOutput(t.file, `the ${t.format} report`);
  return targets;
}

function readText(file: string, what: string): string {
  checkFileSize(file, inputBounds.scenarioBytes, what);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `Cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** --vars FILE: a mapping of names to values, YAML or JSON; a null is no value, and is refused at its place. */
function varsFile(file: string | undefined): Record<string, unknown> | undefined {
  if (!file) return undefined;
  const lines = new LineCounter();
  const doc = parseDocument(readText(file, 'the variables file'), {
    lineCounter: lines,
    prettyErrors: false,
  });
  if (doc.errors.length)
    throw new UsageError(
      `The variables file ${file} is not YAML or JSON: ${doc.errors[0]!.message.split('\n')[0]}`,
    );
  const data: unknown = doc.toJS();
  if (!data || typeof data !== 'object' || Array.isArray(data) || !isMap(doc.contents))
    throw new UsageError(`The variables file ${file} must hold a mapping of names to values`);
  const nulls = doc.contents.items
    .filter((p) => p.value === null || (isScalar(p.value) && p.value.value === null))
    .map((p) => {
      const at = lines.linePos((p.key as { range?: number[] } | null)?.range?.[0] ?? 0);
      return `${file}:${at.line}:${at.col}: ${String((p.key as { value?: unknown })?.value ?? p.key)} has no value (null)`;
    });
  if (nulls.length)
    throw new UsageError(`Nothing was sent: a variable without a value:\n${nulls.join('\n')}`, {
      hint: 'Give each variable of the file a value, or leave it out',
    });
  return data as Record<string, unknown>;
}

/** The variable a one-time code goes in: the one a saved scenario's withdraw confirmation requires. */
const otpVariable = 'otp';

/**
 * The one-time code a scenario requires (\${otp}, a required variable): --otp-stdin reads it; else, not
 * given and a file requires it, it is asked on a terminal when its step needs it (the steps before it
 * sent first): returned as a late variable. Without a terminal the check of the files names it, and
 * nothing is sent. The code is a secret of the run from then on.
 */
async function oneTimeCode(
  opts: RunOptions,
  given: Map<string, unknown>,
  f: Factory,
  read: { scenario: Scenario }[],
): Promise<Map<string, () => Promise<unknown>>> {
  const late = new Map<string, () => Promise<unknown>>();
  if (opts.otpStdin) {
    const code = (await f.io.readStdin()).trim();
    if (!code)
      throw new UsageError('Nothing on stdin for --otp-stdin', {
        hint: 'printf %s "$CODE" | mpay run FILE --otp-stdin',
      });
    given.set(otpVariable, code);
  } else if (!given.has(otpVariable)) {
    const requires = read.some(({ scenario }) =>
      scenario.vars.some((v) => v.name === otpVariable && v.value === null),
    );
    const prompter = requires ? await f.prompter() : undefined;
    if (prompter) {
      let asked: Promise<string> | undefined;
      late.set(otpVariable, () => {
        asked ??= prompter
          .password({
            message: 'The one-time code the scenario confirms a withdrawal with',
            validate: (v) => (v.trim() ? true : 'the code sent to the customer e-mail'),
          })
          .then((code) => {
            f.secrets.register(code.trim());
            return code.trim();
          });
        return asked;
      });
    }
  }
  const code = given.get(otpVariable);
  if (typeof code === 'string') f.secrets.register(code);
  return late;
}

/** Every file checked; all their problems at once, each at file:line:column, before anything is sent. */
function checkAll(
  files: string[],
  read: { scenario: Scenario; problems: Problem[] }[],
  table: CommandTable,
  given: ReadonlySet<string>,
): Scenario[] {
  const problems: Problem[] = [];
  const scenarios = read.map((r) => {
    problems.push(...r.problems);
    problems.push(...checkScenario(r.scenario, table, given));
    return r.scenario;
  });
  if (problems.length) {
    const order = (p: Problem) => [files.indexOf(p.at.file), p.at.line, p.at.col];
    problems.sort((a, b) => order(a).reduce((d, v, i) => d || v - order(b)[i]!, 0));
    const lines = problems.map((p) => `${posText(p.at)}: ${p.message}`);
    throw new UsageError(
      `Nothing was sent: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} in the scenario${files.length > 1 ? 's' : ''}:\n${lines.join('\n')}`,
      { hint: 'See docs/scenarios.md for the format' },
    );
  }
  return scenarios;
}

/**
 * Live is the server's (config/live.ts): a file that names its environment is checked against the run's
 * (a mismatch is exit 2, nothing sent); a run with money steps on a live server is confirmed once, on a
 * terminal naming its money steps, or by --yes, before its first step. The gate is the run's, so the steps
 * pass it without asking again.
 */
async function liveRules(scenarios: Scenario[], f: Factory): Promise<{ env: string; baseUrl: string }> {
  const ctx = await f.context();
  const gate = await f.gate();
  for (const s of scenarios) {
    const want = s.environment;
    if (!want) continue;
    const live = gate.live;
    if (want.value !== ctx.env || (want.value !== 'live' && live))
      throw new UsageError(
        `Nothing was sent: ${posText(want.at)}: ${s.file} is meant for the ${want.value} environment; this run is on ${live ? `the live server ${gate.server.server} (${gate.server.why})` : `${ctx.env} (${ctx.baseUrl})`}`,
        { hint: `Run it with --env ${want.value}, or change its environment: line` },
      );
  }
  const money = scenarios.flatMap((s) => s.steps.filter(isMoneyStep).map((st) => `${st.name}`));
  if (money.length)
    await gate.pass({
      what: `this scenario run's ${money.length} money step${money.length === 1 ? '' : 's'} (${money.join(', ')})`,
    });
  return ctx;
}
