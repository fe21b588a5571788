// What `mpay run` shows of its steps: a line a step for a person (the name, what was sent, the outcome,
// and for a failed expectation the path, the expected and the actual value), the closing count, and the
// reports CI reads: JUnit XML (a file a test suite, a step a test case) and TAP 14 (a file a subtest, a
// step a test point).
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../common/errors.js';
import { OutputFile, clearForOutput, type Outputs } from '../common/out-file.js';
import type { Failure } from '../flows/scenario/scenario-expect.js';
import type { StepRecord } from '../flows/scenario/scenario-run.js';
import { clean } from './output.js';

export interface ReportTarget {
  format: 'junit' | 'tap';
  file: string;
}

const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? 'nothing'));

/** One failure in words: "data.status: expected equals "success", got "failed"". */
export function failureText(f: Failure): string {
  if (f.what === 'exit') return `exit: expected ${f.expected}, got ${f.actual}`;
  if (f.what === 'status') return `HTTP status: expected ${f.expected}, got ${f.actual ?? 'none'}`;
  if (f.what === 'capture') return `capture ${f.check}: nothing at ${f.path}`;
  return `${f.path}: expected ${f.check} ${shown(f.expected)}, got ${shown(f.actual)}`;
}

const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip', interrupted: 'INTR' } as const;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/**
 * What the API said of a failed step, in a line: its `message` and per-field errors, from a request's answer
 * (`{message, errors}`) or a command's error envelope (`{error: {message, fields}}`); none when it said
 * nothing. The record is already scrubbed of the run's secrets.
 */
export function apiSaid(result: unknown): string | undefined {
  if (!isRecord(result)) return undefined;
  const from = isRecord(result.error) ? result.error : result;
  const message = typeof from.message === 'string' ? from.message.trim() : '';
  const fields = isRecord(from.fields) ? from.fields : isRecord(from.errors) ? from.errors : {};
  const each = Object.entries(fields).map(
    ([k, v]) =>
      `${k}: ${(Array.isArray(v) ? v : [v]).map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' ')}`,
  );
  const text = each.length ? `${message}${message ? ' ' : ''}(${each.join('; ')})` : message;
  return text ? text.replace(/\s*\n\s*/g, ' ') : undefined;
}

/** What was said of a failed step, labelled: the API's answer, or mpay's own refusal (no HTTP status). */
function saidOf(r: StepRecord): string | undefined {
  const said = apiSaid(r.result);
  return said && `${typeof r.status === 'number' ? 'the API said' : 'mpay said'}: ${said}`;
}

/** The line (and a line a failure under it) a step shows on a terminal; what came from outside is cleaned. */
export function stepLine(r: StepRecord): string {
  const head = `${mark[r.outcome]} ${r.index}. ${r.step}${r.money ? ' [money]' : ''}`;
  if (r.outcome === 'skipped' || r.outcome === 'interrupted') return clean(`${head}: ${r.skipped}`);
  const result = r.status ? `HTTP ${r.status}, exit ${r.exit}` : `exit ${r.exit}`;
  const lines = [`${head}: ${r.sent} → ${result}${r.kind ? ` (${r.kind})` : ''}`];
  for (const f of r.failures) lines.push(`       ${failureText(f)}`);
  const said = r.outcome === 'failed' ? saidOf(r) : undefined;
  if (said) lines.push(`       ${said}`);
  return clean(lines.join('\n'));
}

/** How many steps ended each way: what a run keeps of its steps (the records themselves are not kept). */
export type Tally = Record<StepRecord['outcome'], number> & { steps: number };

export const newTally = (): Tally => ({ passed: 0, failed: 0, skipped: 0, interrupted: 0, steps: 0 });

export function count(t: Tally, r: StepRecord): void {
  t[r.outcome]++;
  t.steps++;
}

/** The closing count; `interrupted`: Ctrl-C stopped the run. */
export function summaryLine(t: Tally, interrupted = false): string {
  const word = interrupted ? 'INTERRUPTED' : t.failed ? 'FAILED' : 'PASSED';
  const cut = t.interrupted ? `, ${t.interrupted} interrupted` : '';
  return `${word}: ${t.passed} passed, ${t.failed} failed${cut}, ${t.skipped} not run, of ${t.steps} steps`;
}

const xml = (s: string) =>
  // XML 1.0 has no place for most control characters, even escaped: they are left out.
  s
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/**
 * A report written as the run goes (docs/scenarios.md): opened before the first step (a link at its path,
 * or a folder it cannot write, is refused then: exit 2, nothing sent), each step's lines written as the
 * step ends, so that a run of any length holds none of its steps in memory; `end` completes it (after
 * Ctrl-C too). A write that fails after steps were sent does not stop the run: `failed` says why, and the
 * run ends with exit 15 (output_failed).
 */
export interface ReportWriter {
  readonly target: ReportTarget;
  add(r: StepRecord): void;
  end(interrupted: boolean): void;
  /** why the report could not be written, once a write failed */
  failed?: string;
}

/** What a report knows of the run before its first step: each file's run, in order, and its step count. */
export type ReportPlan = { file: string; steps: number }[];

/**
 * Opens every report before anything is sent: all or none (one refused closes those opened). A write that
 * fails later is told to the run's `outputs` (exit 15).
 */
export function openReports(targets: ReportTarget[], plan: ReportPlan, outputs: Outputs): ReportWriter[] {
  const open: ReportWriter[] = [];
  try {
    for (const t of targets) {
      let ran = 0;
      const file = OutputFile.open(t.file, `the ${t.format} report`, {
        outputs,
        sent: () => `after ${ran} step${ran === 1 ? '' : 's'} ran`,
      });
      const steps = (r: StepRecord) => void (r.outcome !== 'skipped' && ran++);
      open.push(t.format === 'junit' ? junitWriter(t, file, steps) : tapWriter(t, file, plan, steps));
    }
  } catch (err) {
    for (const w of open) w.end(false);
    throw err;
  }
  return open;
}

/**
 * A writer that stops writing at its first failure: its report file (common/out-file.ts) keeps why and tells
 * the run's Outputs. `steps` counts what ran, for that message.
 */
function guarded(
  target: ReportTarget,
  file: OutputFile,
  steps: (r: StepRecord) => void,
  w: { add(r: StepRecord): void; end(i: boolean): void; close(): void },
) {
  let ended = false;
  const writer: ReportWriter = {
    target,
    get failed() {
      return file.failed;
    },
    add(r) {
      steps(r);
      if (file.failed) return;
      try {
        w.add(r);
      } catch (err) {
        file.fail(err);
      }
    },
    end(interrupted) {
      if (ended) return;
      ended = true;
      try {
        if (!file.failed) w.end(interrupted);
      } catch (err) {
        file.fail(err);
      } finally {
        w.close();
        file.close();
      }
    },
  };
  return writer;
}

/** Writes to a report's file, or throws (the writer's guard stops there). */
const putTo = (file: OutputFile, text: string) => {
  if (!file.write(text)) throw new Error(file.failed);
  return Buffer.byteLength(text);
};

/**
 * A run starts where the file changes or its step numbers start again (one file given twice runs twice,
 * and is reported twice).
 */
const startsRun = (last: StepRecord | undefined, r: StepRecord) =>
  !last || r.file !== last.file || r.index <= last.index;

/**
 * JUnit XML as Jenkins, GitLab and the others read it. Its counts come first, in attributes: each test
 * case is written as its step ends to a temporary file beside the report (unlinked at once: nothing is
 * left behind, even by kill -9), and the report is made at the end from the counts and those cases,
 * copied a block at a time.
 */
function junitWriter(t: ReportTarget, file: OutputFile, steps: (r: StepRecord) => void): ReportWriter {
  const tmpPath = join(dirname(t.file), `.${basename(t.file)}.${randomBytes(6).toString('hex')}.cases`);
  let tmp: number;
  try {
    tmp = openSync(tmpPath, 'wx+', 0o600);
    unlinkSync(tmpPath);
  } catch (err) {
    file.close();
    throw err;
  }
  type Suite = { file: string; name: string; from: number; to: number; tally: Tally; ms: number };
  const suites: Suite[] = [];
  const all = newTally();
  let at = 0;
  let last: StepRecord | undefined;
  const put = (f: number | OutputFile, text: string) => {
    if (typeof f !== 'number') return putTo(f, text);
    const b = Buffer.from(text);
    let done = 0;
    while (done < b.length) done += writeSync(f, b, done, b.length - done);
    return b.length;
  };
  const attrs = (x: Tally) =>
    `tests="${x.steps}" failures="${x.failed}" errors="${x.interrupted}" skipped="${x.skipped}"`;
  return guarded(t, file, steps, {
    add(r) {
      if (startsRun(last, r))
        suites.push({ file: r.file, name: r.scenario, from: at, to: at, tally: newTally(), ms: 0 });
      last = r;
      const s = suites.at(-1)!;
      count(s.tally, r);
      count(all, r);
      s.ms += r.ms;
      at += put(tmp, `${testCase(r, s.name, s.file)}\n`);
      s.to = at;
    },
    end() {
      const ms = suites.reduce((n, s) => n + s.ms, 0);
      put(
        file,
        `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mpay run" ${attrs(all)} time="${secs(ms)}">\n`,
      );
      const block = Buffer.alloc(64 * 1024);
      for (const s of suites) {
        put(file, `  <testsuite name="${xml(s.name)}" ${attrs(s.tally)} time="${secs(s.ms)}">\n`);
        for (let pos = s.from; pos < s.to;) {
          const n = readSync(tmp, block, 0, Math.min(block.length, s.to - pos), pos);
          if (n <= 0) break;
          if (!file.write(block.subarray(0, n))) throw new Error(file.failed);
          pos += n;
        }
        put(file, '  </testsuite>\n');
      }
      put(file, '</testsuites>\n');
    },
    close() {
      closeSync(tmp);
    },
  });
}

const secs = (ms: number) => (ms / 1000).toFixed(3);

/** One step's test case. */
function testCase(r: StepRecord, suite: string, file: string): string {
  const open = `    <testcase name="${xml(`${r.index}. ${r.step}`)}" classname="${xml(suite)}" file="${xml(file)}" time="${secs(r.ms)}"`;
  if (r.outcome === 'passed') return `${open}/>`;
  if (r.outcome === 'skipped')
    return `${open}>\n      <skipped message="${xml(r.skipped ?? '')}"/>\n    </testcase>`;
  if (r.outcome === 'interrupted')
    return `${open}>\n      <error message="${xml(r.skipped ?? '')}" type="interrupted"/>\n    </testcase>`;
  const said = apiSaid(r.result);
  const text = [
    `sent: ${r.sent}`,
    ...r.failures.map(failureText),
    ...(said ? [`the API said: ${said}`] : []),
  ].join('\n');
  return `${open}>\n      <failure message="${xml(r.failures.map(failureText).join('; '))}" type="expectation">${xml(text)}</failure>\n    </testcase>`;
}

/** A TAP description: no '#' (it starts a directive) and one line. */
const tapText = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/#/g, '\\#');
const yamlString = (s: string) => JSON.stringify(s);

/** One step's test point, and its YAML block when it failed. */
function testPoint(r: StepRecord): string[] {
  const name = tapText(`${r.index}. ${r.step}`);
  if (r.outcome === 'skipped') return [`    ok ${r.index} - ${name} # SKIP ${tapText(r.skipped ?? '')}`];
  if (r.outcome === 'passed') return [`    ok ${r.index} - ${name}`];
  if (r.outcome === 'interrupted')
    return [
      `    not ok ${r.index} - ${name} # interrupted`,
      '      ---',
      `      message: ${yamlString(r.skipped ?? '')}`,
      '      ...',
    ];
  const said = saidOf(r);
  return [
    `    not ok ${r.index} - ${name}`,
    '      ---',
    `      sent: ${yamlString(r.sent ?? '')}`,
    ...(said ? [`      said: ${yamlString(said)}`] : []),
    '      failures:',
    ...r.failures.map((f) => `        - ${yamlString(failureText(f))}`),
    '      ...',
  ];
}

/**
 * TAP version 14, written straight to its file as the run goes: a file a subtest (its plan from the
 * file's step count), a step a test point, a failure's details in its YAML block.
 */
function tapWriter(
  t: ReportTarget,
  file: OutputFile,
  plan: ReportPlan,
  steps: (r: StepRecord) => void,
): ReportWriter {
  const put = (lines: string[]) => void putTo(file, `${lines.join('\n')}\n`);
  let last: StepRecord | undefined;
  let run = 0;
  let failed = false;
  const closeRun = () => {
    if (last) put([`${failed ? 'not ok' : 'ok'} ${run} - ${tapText(last.file)}`]);
  };
  let started = false;
  return guarded(t, file, steps, {
    add(r) {
      if (!started) put(['TAP version 14', `1..${plan.length}`]);
      started = true;
      if (startsRun(last, r)) {
        closeRun();
        run++;
        failed = false;
        put([`# Subtest: ${tapText(r.scenario)}`, `    1..${plan[run - 1]?.steps ?? 0}`]);
      }
      last = r;
      if (r.outcome === 'failed' || r.outcome === 'interrupted') failed = true;
      put(testPoint(r));
    },
    end(interrupted) {
      if (!started) put(['TAP version 14', `1..${plan.length}`]);
      closeRun();
      // A run stopped by Ctrl-C says so to the consumer: a bail out, whatever the points before it say.
      if (interrupted)
        put(['Bail out! mpay run was interrupted (Ctrl-C): the steps after the interruption were not run']);
    },
    close() {},
  });
}

/**
 * A step's lines as shown: one naming its file before the file's first step (`file`: the step before's),
 * then its own.
 */
export function stepLines(r: StepRecord, file: string | undefined): string[] {
  return r.file === file ? [stepLine(r)] : [`# ${r.scenario} (${r.file})`, stepLine(r)];
}

/** --report junit=FILE or tap=FILE, each checked as the flags are read. */
export function reportTargets(given: string[] | undefined): ReportTarget[] {
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
