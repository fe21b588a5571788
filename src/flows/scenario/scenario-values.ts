// The values of a scenario's run: its variables (--var, a variables file, MPAY_VAR_* and the file's own
// defaults; the variables file is read here, and only here), its fresh reference, and the captures of its
// steps; and the one substitution of `${…}` in a step's values. A value is substituted once and never read again as a reference: a captured or given
// value that holds `${…}` stays as it is.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
import { checkFileSize, inputBounds } from '../../api/input-bounds.js';
import { UsageError } from '../../common/errors.js';
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

/** --vars FILE: a mapping of names to values, YAML or JSON; a null is no value, and is refused at its place. */
export function varsFile(file: string | undefined): Record<string, unknown> | undefined {
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

/** A file of a run (a scenario, the variables file) read whole, within its size bound; unreadable is exit 2. */
export function readText(file: string, what: string): string {
  checkFileSize(file, inputBounds.scenarioBytes, what);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `Cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
