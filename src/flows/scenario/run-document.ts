// What `mpay run` shows of its steps' records (commands/run/run.ts): each record scrubbed of the run's
// secrets, and the --json document of the whole run.
import type { Secrets } from '../../api/redact.js';
import { runReference } from './scenario-check.js';
import type { Scenario } from './scenario-file.js';
import type { StepRecord } from './scenario-run.js';

/** The run's counts (ui/scenario-report.ts keeps them). */
type Tally = Record<StepRecord['outcome'], number> & { steps: number };

/**
 * A record as it is shown: what was sent, what came back and what was captured scrubbed of the run's
 * secrets (api/redact.ts); the file's own words (names, paths, checks) as written.
 */
export function scrubbed(r: StepRecord, f: { secrets: Secrets }): StepRecord {
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
export function document(
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
