// What `mpay run` shows of its steps: a line a step for a person (the name, what was sent, the outcome,
// and for a failed expectation the path, the expected and the actual value), the closing count, and the
// reports CI reads: JUnit XML (a file a test suite, a step a test case) and TAP 14 (a file a subtest, a
// step a test point).
import { writeFileSync } from 'node:fs';
import { clearForOutput } from '../api/out-file.js';
import type { Failure } from '../flows/scenario-expect.js';
import type { StepRecord } from '../flows/scenario-run.js';
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

/** The closing count; `interrupted`: Ctrl-C stopped the run. */
export function summaryLine(records: StepRecord[], interrupted = false): string {
  const n = (o: StepRecord['outcome']) => records.filter((r) => r.outcome === o).length;
  const failed = n('failed');
  const word = interrupted ? 'INTERRUPTED' : failed ? 'FAILED' : 'PASSED';
  const cut = n('interrupted') ? `, ${n('interrupted')} interrupted` : '';
  return `${word}: ${n('passed')} passed, ${failed} failed${cut}, ${n('skipped')} not run, of ${records.length} steps`;
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
 * The records of each file's run, in the run's order: a run starts where the file changes or its step
 * numbers start again (one file given twice runs twice, and is reported twice).
 */
function byFile(records: StepRecord[]): [string, StepRecord[]][] {
  const runs: [string, StepRecord[]][] = [];
  let last: StepRecord | undefined;
  for (const r of records) {
    if (!last || r.file !== last.file || r.index <= last.index) runs.push([r.file, []]);
    runs.at(-1)![1].push(r);
    last = r;
  }
  return runs;
}

/** JUnit XML as Jenkins, GitLab and the others read it. */
export function junitReport(records: StepRecord[]): string {
  const count = (rs: StepRecord[], o: StepRecord['outcome']) => rs.filter((r) => r.outcome === o).length;
  const secs = (rs: StepRecord[]) => (rs.reduce((t, r) => t + r.ms, 0) / 1000).toFixed(3);
  const suites = byFile(records).map(([file, rs]) => {
    const cases = rs.map((r) => {
      const open = `    <testcase name="${xml(`${r.index}. ${r.step}`)}" classname="${xml(rs[0]!.scenario)}" file="${xml(file)}" time="${(r.ms / 1000).toFixed(3)}"`;
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
    });
    return `  <testsuite name="${xml(rs[0]!.scenario)}" tests="${rs.length}" failures="${count(rs, 'failed')}" errors="${count(rs, 'interrupted')}" skipped="${count(rs, 'skipped')}" time="${secs(rs)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mpay run" tests="${records.length}" failures="${count(records, 'failed')}" errors="${count(records, 'interrupted')}" skipped="${count(records, 'skipped')}" time="${secs(records)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** A TAP description: no '#' (it starts a directive) and one line. */
const tapText = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/#/g, '\\#');
const yamlString = (s: string) => JSON.stringify(s);

/** TAP version 14: a file a subtest, a step a test point, a failure's details in its YAML block. */
export function tapReport(records: StepRecord[], interrupted = false): string {
  const files = byFile(records);
  const out = ['TAP version 14', `1..${files.length}`];
  files.forEach(([file, rs], i) => {
    out.push(`# Subtest: ${tapText(rs[0]!.scenario)}`, `    1..${rs.length}`);
    for (const r of rs) {
      const name = tapText(`${r.index}. ${r.step}`);
      if (r.outcome === 'skipped') out.push(`    ok ${r.index} - ${name} # SKIP ${tapText(r.skipped ?? '')}`);
      else if (r.outcome === 'passed') out.push(`    ok ${r.index} - ${name}`);
      else if (r.outcome === 'interrupted')
        out.push(
          `    not ok ${r.index} - ${name} # interrupted`,
          '      ---',
          `      message: ${yamlString(r.skipped ?? '')}`,
          '      ...',
        );
      else {
        const said = saidOf(r);
        out.push(`    not ok ${r.index} - ${name}`, '      ---', `      sent: ${yamlString(r.sent ?? '')}`);
        if (said) out.push(`      said: ${yamlString(said)}`);
        out.push(
          '      failures:',
          ...r.failures.map((f) => `        - ${yamlString(failureText(f))}`),
          '      ...',
        );
      }
    }
    const failed = rs.some((r) => r.outcome === 'failed' || r.outcome === 'interrupted');
    out.push(`${failed ? 'not ok' : 'ok'} ${i + 1} - ${tapText(file)}`);
  });
  // A run stopped by Ctrl-C says so to the consumer: a bail out, whatever the points before it say.
  if (interrupted)
    out.push('Bail out! mpay run was interrupted (Ctrl-C): the steps after the interruption were not run');
  return `${out.join('\n')}\n`;
}

/** Each report to its file: a link at the path is refused, the file made anew, 0600 (api/out-file.ts). */
export function writeReports(targets: ReportTarget[], records: StepRecord[], interrupted = false): void {
  for (const t of targets) {
    clearForOutput(t.file, `the ${t.format} report`);
    writeFileSync(t.file, t.format === 'junit' ? junitReport(records) : tapReport(records, interrupted), {
      flag: 'wx',
      mode: 0o600,
    });
  }
}
