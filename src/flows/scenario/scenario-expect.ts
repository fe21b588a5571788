// What a step's outcome is held to (docs/scenarios.md): its exit code or kind, its HTTP status, and values
// at JMESPath paths of its result (equal, matching a regex, existing, a number in a range); and what it
// captures for the steps after it.
import { search, type JSONValue } from '@jmespath-community/jmespath';
import { exitCodes } from '../../common/errors.js';
import type { Expectation, ScenarioStep, ValueCheck } from './scenario-file.js';

/** What a step came to: its exit code and error kind (as the command's), the HTTP status, its result. */
export interface StepOutcome {
  exit: number;
  kind?: string;
  /** the answer's HTTP status (a request), or the status of the error a command reported */
  status?: number | null;
  /** the command's --json document, or the request's answer (JSON parsed, else its text) */
  result: unknown;
}

/** One expectation that did not hold. */
export interface Failure {
  what: 'exit' | 'status' | 'value' | 'capture';
  /** the JMESPath, for a value or a capture */
  path?: string;
  /** equals, matches, exists, min, max */
  check?: string;
  expected: unknown;
  actual: unknown;
}

const kindOfCode = (code: number) => Object.entries(exitCodes).find(([, c]) => c === code)?.[0];

/** The failures of an outcome against a step's expectations; without exit or status, success is expected. */
export function failuresOf(e: Expectation, o: StepOutcome): Failure[] {
  const out: Failure[] = [];
  const actualExit = o.kind ? `${o.exit} (${o.kind})` : String(o.exit);
  if (e.exit !== undefined) {
    const held = typeof e.exit === 'number' ? o.exit === e.exit : (o.kind ?? kindOfCode(o.exit)) === e.exit;
    if (!held) out.push({ what: 'exit', expected: e.exit, actual: actualExit });
  } else if (e.status === undefined && o.exit !== 0)
    out.push({ what: 'exit', expected: 0, actual: actualExit });
  if (e.status !== undefined && o.status !== e.status)
    out.push({ what: 'status', expected: e.status, actual: o.status ?? null });
  for (const v of e.values) out.push(...checkValue(v, o.result));
  return out;
}

function at(result: unknown, path: string): unknown {
  try {
    return search(result as JSONValue, path);
  } catch {
    return null;
  }
}

function checkValue(v: ValueCheck, result: unknown): Failure[] {
  const actual = at(result, v.path);
  const out: Failure[] = [];
  const fail = (check: string, expected: unknown) =>
    out.push({ what: 'value', path: v.path, check, expected, actual: actual ?? null });
  const exists = actual !== null && actual !== undefined;
  if (v.exists !== undefined && exists !== v.exists) fail('exists', v.exists);
  if ('equals' in v && v.equals !== undefined && !same(actual, v.equals)) fail('equals', v.equals);
  if (v.matches !== undefined && !(exists && new RegExp(v.matches).test(textOf(actual))))
    fail('matches', v.matches);
  if (v.min !== undefined || v.max !== undefined) {
    const n = typeof actual === 'number' ? actual : typeof actual === 'string' ? Number(actual) : NaN;
    const range = `${v.min ?? '-∞'}..${v.max ?? '∞'}`;
    if (!Number.isFinite(n) || (v.min !== undefined && n < v.min) || (v.max !== undefined && n > v.max))
      fail('range', range);
  }
  return out;
}

const textOf = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Equal as JSON values; a number and its decimal string are equal (the API writes amounts as strings). */
function same(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'number' && typeof actual === 'string') return Number(actual) === expected;
  if (typeof expected === 'string' && typeof actual === 'number') return Number(expected) === actual;
  return JSON.stringify(actual) === JSON.stringify(expected);
}

/** The values a step captures; a capture that finds nothing is a failure, and is left undefined. */
export function capturesOf(
  step: ScenarioStep,
  result: unknown,
): { values: Map<string, unknown>; failures: Failure[] } {
  const values = new Map<string, unknown>();
  const failures: Failure[] = [];
  for (const c of step.capture) {
    const v = at(result, c.path);
    if (v === null || v === undefined)
      failures.push({ what: 'capture', path: c.path, check: c.name, expected: 'a value', actual: null });
    else values.set(c.name, v);
  }
  return { values, failures };
}
