// The run of checked scenarios, step by step (docs/scenarios.md): each step's values substituted once
// from the scope, sent by the caller's executor (a command in-process, or a request as `mpay api` sends
// it: every money step through the run's one gate), held to its expectations, its captures added to the
// scope. A failed money step stops the money steps after it unless the file says otherwise; --fail-fast
// stops everything after the first failed step.
import { capturesOf, failuresOf, type Failure, type StepOutcome } from './scenario-expect.js';
import { isMoneyStep } from './scenario-check.js';
import type { Scenario, ScenarioStep } from './scenario-file.js';
import { substitute } from './scenario-values.js';

/** A step's values after substitution: what its executor sends. */
export interface ResolvedStep {
  step: ScenarioStep;
  args: unknown[];
  flags: { name: string; value: unknown }[];
  path?: unknown;
  body?: Record<string, unknown>;
}

/** Sends a step; a failure of the step itself is in its outcome (exit, kind), never thrown. */
export type StepExecutor = (s: ResolvedStep) => Promise<StepOutcome & { sent: string }>;

/** One step's record: the --json and --ndjson contract (docs/scenarios.md). */
export interface StepRecord {
  file: string;
  scenario: string;
  index: number;
  step: string;
  type: 'run' | 'request';
  money: boolean;
  /** interrupted: in flight when a second Ctrl-C ended the run at once (its answer is unknown) */
  outcome: 'passed' | 'failed' | 'skipped' | 'interrupted';
  sent?: string;
  exit?: number;
  kind?: string;
  status?: number | null;
  result?: unknown;
  captured?: Record<string, unknown>;
  failures: Failure[];
  /** why a step was not run */
  skipped?: string;
  ms: number;
}

export interface RunControls {
  failFast?: boolean;
  signal?: AbortSignal;
  now: () => Date;
  /** each record as its step ends (a line on a terminal, --ndjson) */
  emit: (r: StepRecord) => void;
  /** a step is about to be sent (the progress on a terminal; what a second Ctrl-C marks interrupted) */
  starting?: (r: StepRecord) => void;
  /**
   * variables given only when a step needs them (a one-time code asked on a terminal): asked before the
   * first step that refers to one runs, once for the whole run, after the steps before it were sent
   */
  late?: ReadonlyMap<string, () => Promise<unknown>>;
}

/** Why the steps after a Ctrl-C are not run. */
export const interruptedReason = 'not run: interrupted (Ctrl-C)';

type Run = { scenario: Scenario; scope: Map<string, unknown> };

/** A step's record before it runs: its place and name (substituted once, scenario-values.ts withNames). */
function baseRecord(scenario: Scenario, step: ScenarioStep): StepRecord {
  return {
    file: scenario.file,
    scenario: scenario.name,
    index: step.index,
    step: step.name,
    type: step.run ? 'run' : 'request',
    money: isMoneyStep(step),
    outcome: 'skipped',
    failures: [],
    ms: 0,
  };
}

/**
 * The records of the steps that had not ended when a run ends at once (a second Ctrl-C): the one in flight
 * interrupted, the others not run. `ended` steps of the run had ended (they are its first steps, in order).
 */
export function* recordsWhenStopped(
  runs: Run[],
  ended: number,
  inFlight?: StepRecord,
): Generator<StepRecord> {
  let at = 0;
  let first = true;
  for (const { scenario } of runs)
    for (const step of scenario.steps) {
      if (at++ < ended) continue;
      const r = baseRecord(scenario, step);
      if (first && inFlight)
        yield {
          ...inFlight,
          outcome: 'interrupted',
          skipped: 'interrupted (Ctrl-C) while in flight: its answer is unknown',
        };
      else yield { ...r, skipped: interruptedReason };
      first = false;
    }
}

/**
 * Runs the scenarios in order, each with its own scope; each step's record goes to `emit` as it ends, and
 * none is kept here: a run of any length holds one step's record at a time.
 */
export async function runScenarios(runs: Run[], exec: StepExecutor, c: RunControls): Promise<void> {
  let stopped: string | undefined;
  for (const { scenario, scope } of runs) {
    let moneyFailed: string | undefined;
    for (const step of scenario.steps) {
      const base = baseRecord(scenario, step);
      const money = base.money;
      if (c.signal?.aborted) stopped ??= interruptedReason;
      const held =
        stopped ??
        (money && moneyFailed && scenario.afterMoneyFailure === 'stop'
          ? `not run: the money step "${moneyFailed}" failed, and no money step runs after a failed one (after_money_failure: continue runs them)`
          : undefined);
      if (!held) await giveLate(step, scope, c.late);
      const skip = held ?? missingCapture(step, scope);
      if (!skip) c.starting?.(base);
      const record: StepRecord = skip
        ? { ...base, outcome: 'skipped', skipped: skip }
        : await runStep(step, scope, exec, c.now, base);
      if (record.outcome === 'failed') {
        if (money) moneyFailed ??= step.name;
        if (c.failFast) stopped ??= `not run: --fail-fast, after the failed step "${step.name}"`;
      }
      c.emit(record);
    }
  }
}

/** The late variables a step refers to and its scope has not: asked now (each once for the run). */
async function giveLate(
  step: ScenarioStep,
  scope: Map<string, unknown>,
  late: RunControls['late'],
): Promise<void> {
  if (!late) return;
  for (const name of new Set(step.refs.map((r) => r.name)))
    if (!scope.has(name) && late.has(name)) scope.set(name, await late.get(name)!());
}

/** A capture the step needs that its step did not make (that step failed or was not run). */
function missingCapture(step: ScenarioStep, scope: Map<string, unknown>): string | undefined {
  const missing = [...new Set(step.refs.map((r) => r.name).filter((n) => !scope.has(n)))];
  return missing.length
    ? `not run: ${missing.map((n) => '${' + n + '}').join(', ')} not captured (an earlier step failed or was not run)`
    : undefined;
}

async function runStep(
  step: ScenarioStep,
  scope: Map<string, unknown>,
  exec: StepExecutor,
  now: () => Date,
  base: Omit<StepRecord, 'outcome'>,
): Promise<StepRecord> {
  const resolved: ResolvedStep = {
    step,
    args: (step.run?.args ?? []).map((a) => substitute(a, scope)),
    flags: (step.run?.flags ?? []).map((f) => ({ name: f.name, value: substitute(f.value, scope) })),
    path: step.request ? substitute(step.request.path, scope) : undefined,
    body: step.request?.body && (substitute(step.request.body, scope) as Record<string, unknown>),
  };
  const live: ScenarioStep = {
    ...step,
    capture: step.capture.map((c) => ({ ...c, path: String(substitute(c.path, scope)) })),
  };
  const expect = {
    ...step.expect,
    values: step.expect.values.map((v) => substitute(v, scope)),
  } as typeof step.expect;
  const started = now().getTime();
  const o = await exec(resolved);
  const failures = failuresOf(expect, o);
  const captured = capturesOf(live, o.result);
  failures.push(...captured.failures);
  for (const [k, v] of captured.values) scope.set(k, v);
  return {
    ...base,
    outcome: failures.length ? 'failed' : 'passed',
    sent: o.sent,
    exit: o.exit,
    kind: o.kind,
    status: o.status,
    result: o.result,
    captured: captured.values.size ? Object.fromEntries(captured.values) : undefined,
    failures,
    ms: now().getTime() - started,
  };
}
