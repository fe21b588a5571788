// The values of a scenario's run: its variables (--var, a variables file, MPAY_VAR_* and the file's own
// defaults), its fresh reference, and the captures of its steps; and the one substitution of `${…}` in a
// step's values. A value is substituted once and never read again as a reference: a captured or given
// value that holds `${…}` stays as it is.
import { randomBytes } from 'node:crypto';
import { UsageError } from '../api/errors.js';
import { runReference } from './scenario-check.js';
import { referencePattern, type Scenario } from './scenario-file.js';

/** The documented prefix of environment variables a scenario reads: MPAY_VAR_currency is ${currency}. */
export const envVarPrefix = 'MPAY_VAR_';

/** The variables given to a run: the vars file first, then MPAY_VAR_*, then --var (the last wins). */
export function givenVars(sources: {
  file?: Record<string, unknown>;
  environ: NodeJS.ProcessEnv;
  flags?: string[];
}): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(sources.file ?? {})) out.set(k, v);
  for (const [k, v] of Object.entries(sources.environ))
    if (k.startsWith(envVarPrefix) && k.length > envVarPrefix.length && v !== undefined)
      out.set(k.slice(envVarPrefix.length), v);
  for (const pair of sources.flags ?? []) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new UsageError(`Invalid --var "${pair}": expected name=value`);
    out.set(pair.slice(0, i), pair.slice(i + 1));
  }
  for (const name of out.keys())
    if (!/^[A-Za-z_][\w-]*$/.test(name))
      throw new UsageError(
        `Invalid variable name "${name}": letters, digits, _ and -, not starting with a digit`,
        {
          hint: "${run.reference} is the run's own and cannot be given",
        },
      );
  return out;
}

/** A fresh reference for this run: each `${run.reference}` of the run is this one. */
export function freshReference(now: Date): string {
  return `scn-${now.getTime().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/**
 * Replaces each `${name}` in a value with the scope's value, in one pass: what is put in is never read
 * again. A string that is one reference whole takes the value with its type (a number stays a number);
 * `$${` writes a literal `${`.
 */
export function substitute(value: unknown, scope: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([^}]*)\}$/.exec(value);
    if (whole && scope.has(whole[1]!.trim())) return scope.get(whole[1]!.trim());
    return value.replace(referencePattern, (m, name: string | undefined) => {
      if (name === undefined) return '${';
      const v = scope.get(name.trim());
      if (v === undefined) return m;
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, scope));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, scope)]));
  return value;
}

/**
 * The scope a scenario's steps start with: the run's reference, the given variables as they are, and the
 * file's defaults for the others, each default's own references substituted once (in the order they
 * need: checkScenario has refused a cycle).
 */
export function startScope(
  s: Scenario,
  given: ReadonlyMap<string, unknown>,
  reference: string,
): Map<string, unknown> {
  const scope = new Map<string, unknown>([[runReference, reference], ...given]);
  const byName = new Map(s.vars.map((v) => [v.name, v]));
  const seen = new Set<string>();
  const resolve = (name: string): void => {
    const v = byName.get(name);
    if (!v || scope.has(name) || seen.has(name)) return;
    seen.add(name);
    for (const r of v.refs) resolve(r.name);
    scope.set(name, substitute(v.value, scope));
  };
  for (const v of s.vars) resolve(v.name);
  return scope;
}

/**
 * The scenario with each step's name substituted, once, from the scope it starts with (variables and
 * ${run.reference}; checkScenario has refused a capture in a name): the one name shown everywhere, in the
 * live question, the lines, the records and the reports.
 */
export function withNames(s: Scenario, scope: ReadonlyMap<string, unknown>): Scenario {
  return { ...s, steps: s.steps.map((st) => ({ ...st, name: textOfValue(substitute(st.name, scope)) })) };
}

const textOfValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
