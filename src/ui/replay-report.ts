// `mpay replay`'s report for a person: each call with its recorded answer beside the new one, and what
// differs. The values have been scrubbed of secrets by the caller; escapes a server sent are cleaned here.
import type { PlannedCall } from '../flows/replay/replay-plan.js';
import type { ReplayedCall } from '../flows/replay/replay.js';
import type { AnswerSummary, Difference } from '../flows/replay/replay-compare.js';
import { clean } from './output.js';

const short = (s: string | null, n = 48) => (s === null ? '-' : s.length > n ? `${s.slice(0, n - 1)}…` : s);

function answerLine(a: AnswerSummary | null): string {
  if (!a) return 'not sent';
  if (a.status === 0) return `no answer (${short(a.error ?? 'failed')})`;
  const flag = a.flag === null ? '' : ` ${a.flag}`;
  return `${a.status}${flag} "${short(a.message)}" ${a.shape ? `${Object.keys(a.shape).length} fields` : 'not JSON'}`;
}

function differenceLine(d: Difference): string {
  const v = (x: unknown) => (typeof x === 'string' ? short(x, 40) : JSON.stringify(x));
  if (d.what === 'field') return `${d.path}: ${v(d.recorded)} → ${v(d.replayed)}`;
  return `${d.what}: ${v(d.recorded)} → ${v(d.replayed)}`;
}

export function replayReport(results: ReplayedCall[], where: string): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.index}. ${r.method} ${r.path}  ${r.skipped ? 'NOT SENT' : r.same ? 'same' : 'DIFFERS'}`);
    lines.push(`   recorded: ${answerLine(r.recorded)}`);
    lines.push(`   replayed: ${r.skipped ? short(r.skipped, 200) : answerLine(r.replayed)}`);
    if (r.reference) lines.push(`   reference: ${r.reference} (recorded: ${r.recorded_reference ?? '-'})`);
    // the API's own words beside the differences: its message, and what it said of each field
    if (!r.same && r.replayed && r.replayed.status !== 0) {
      if (r.replayed.message !== null) lines.push(`   the API said: "${short(r.replayed.message, 200)}"`);
      for (const said of r.replayed.says ?? []) lines.push(`     ${short(said, 200)}`);
    }
    const shown = r.differences.slice(0, 12);
    for (const d of shown) lines.push(`     ${differenceLine(d)}`);
    if (r.differences.length > shown.length)
      lines.push(`     … and ${r.differences.length - shown.length} more (--json lists them all)`);
  }
  const differ = results.filter((r) => !r.same).length;
  lines.push(
    '',
    differ
      ? `${differ} of ${results.length} calls answered otherwise than recorded, at ${where}`
      : results.length === 1
        ? `The one call answered as recorded, at ${where}`
        : `All ${results.length} calls answered as recorded, at ${where}`,
  );
  return clean(lines.join('\n'));
}

export function replayPlan(plan: PlannedCall[], server: string, neutral: boolean): string {
  const lines = [
    `Dry run: nothing is sent. The calls, in order, as they would go to ${server}${neutral ? " (not a sandbox: the recorded customer's data replaced by neutral values)" : ''}:`,
  ];
  for (const p of plan) {
    lines.push(`${p.index}. ${p.method} ${p.path}${p.skipped ? `  (${p.skipped})` : ''}`);
    if (p.body) lines.push(`   ${JSON.stringify(p.body)}`);
  }
  return clean(lines.join('\n'));
}
