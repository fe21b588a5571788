// A scenario checked whole before anything is sent (docs/scenarios.md): every step a command mpay may run
// as a step, with flags it has; every expectation and capture well formed; every `${…}` defined before the
// step that uses it (a capture of the step itself or of a later one is a cycle); every variable given.
import { compile } from '@jmespath-community/jmespath';
import { exitCodes } from '../../common/errors.js';
import { moneyEndpointOf } from '../../api/money.js';
import {
  posText,
  type Pos,
  type Problem,
  type Reference,
  type Scenario,
  type ScenarioStep,
} from './scenario-file.js';

/** What validation needs to know of a command: its flags and how many arguments it takes. */
export interface CommandInfo {
  flags: Record<string, { type: 'boolean' | 'option'; allowNo?: boolean; multiple?: boolean }>;
  args: number;
}

/** The commands of this mpay, by id (`deposit:initiate`); undefined for a name that is none. */
export type CommandTable = (id: string) => CommandInfo | undefined;

/** The commands a step may run: those that talk to the API (or read the journal), and never ask. */
export const stepCommands = [
  'api',
  'balances',
  'countries',
  'currencies',
  'deposit',
  'deposit:initiate',
  'deposit:process',
  'doctor',
  'history:show',
  'status',
  'wallet',
  'whoami',
  'withdraw',
  'withdraw:initiate',
  'withdraw:process',
] as const;

const moneyCommands = [
  'deposit',
  'deposit:initiate',
  'deposit:process',
  'status',
  'wallet',
  'withdraw',
  'withdraw:initiate',
  'withdraw:process',
];

/** Set on `mpay run` for the whole run, never by a step: the server, the merchant, the output, the gate. */
export const runOnlyFlags = [
  'profile',
  'env',
  'base-url',
  'json',
  'query',
  'debug',
  'yes',
  'no-input',
  'trace',
];

/** The reserved reference to this run's fresh reference. */
export const runReference = 'run.reference';

/**
 * Whether a step may move money: a payment command, or a request (or `mpay api`) to a money endpoint. A
 * path that holds a reference is taken as money: when in doubt, it is money.
 */
export function isMoneyStep(step: ScenarioStep): boolean {
  if (step.run) {
    const id = step.run.words.join(':');
    if (id === 'api') return moneyPath(step.run.args[1]);
    return moneyCommands.includes(id);
  }
  return step.request ? moneyPath(step.request.path) : false;
}

function moneyPath(path: unknown): boolean {
  if (typeof path !== 'string') return true;
  if (path.includes('${')) return true;
  try {
    return moneyEndpointOf(new URL(path.replace(/^\/*/, '/restapi/v1/'), 'http://x')) !== undefined;
  } catch {
    return true;
  }
}

const exitKinds = Object.keys(exitCodes);

/** Every problem of a read scenario, given the variables the run has. */
export function checkScenario(s: Scenario, table: CommandTable, given: ReadonlySet<string>): Problem[] {
  const problems: Problem[] = [];
  const fail = (at: Pos, message: string) => problems.push({ at, message });
  for (const step of s.steps) {
    if (step.run) checkCommand(step, table, fail);
    checkExpect(step, fail);
    for (const c of step.capture) checkPath(c.path, c.at, `capture ${c.name}`, fail);
  }
  checkVars(s, given, fail);
  checkReferences(s, given, fail);
  return problems;
}

type Fail = (at: Pos, message: string) => void;

function checkCommand(step: ScenarioStep, table: CommandTable, fail: Fail): void {
  const run = step.run!;
  const id = run.words.join(':');
  const info = table(id);
  const shown = `mpay ${run.words.join(' ')}`;
  if (!info) return fail(run.at, `step "${step.name}": unknown command \`${shown}\``);
  if (!(stepCommands as readonly string[]).includes(id))
    return fail(
      run.at,
      `step "${step.name}": \`${shown}\` cannot be a step (one of: ${stepCommands.map((c) => c.replace(/:/g, ' ')).join(', ')})`,
    );
  if (run.args.length > info.args)
    fail(
      run.at,
      `step "${step.name}": \`${shown}\` takes ${info.args} argument${info.args === 1 ? '' : 's'}, not ${run.args.length}`,
    );
  for (const f of run.flags) {
    const bare = f.name.replace(/^-+/, '');
    const negated = bare.startsWith('no-') ? info.flags[bare.slice(3)] : undefined;
    const flag = info.flags[bare] ?? (negated?.allowNo ? negated : undefined);
    if (runOnlyFlags.includes(bare))
      fail(f.at, `step "${step.name}": --${bare} is set on \`mpay run\` for the whole run, not in a step`);
    else if (!flag) fail(f.at, `step "${step.name}": unknown flag --${bare} of \`${shown}\``);
    else if (readsStdin(bare, f.value))
      fail(
        f.at,
        `step "${step.name}": --${bare}${bare === 'input' ? ' -' : ''} reads stdin, which a step has not (the run's own stdin is not passed on): ${bare === 'otp-stdin' ? 'give otp: "${otp}" and --var otp=…' : "give the body as the step's fields"}`,
      );
    else if (flag.type === 'boolean' && typeof f.value !== 'boolean')
      fail(f.at, `step "${step.name}": --${bare} is a switch: true or false`);
    else if (Array.isArray(f.value) && !flag.multiple)
      fail(f.at, `step "${step.name}": --${bare} takes one value`);
  }
}

/** A flag that would read the step's stdin: a step has none, so it could only fail. */
function readsStdin(flag: string, value: unknown): boolean {
  return (flag.endsWith('-stdin') && value !== false) || (flag === 'input' && value === '-');
}

function checkPath(path: string, at: Pos, what: string, fail: Fail): void {
  // a path that holds a reference is checked as the run substitutes it
  if (path.includes('${')) return;
  try {
    compile(path);
  } catch (err) {
    fail(at, `${what}: not a JMESPath (${(err as Error).message})`);
  }
}

function checkExpect(step: ScenarioStep, fail: Fail): void {
  const e = step.expect;
  if (e.exit !== undefined) {
    const ok =
      (typeof e.exit === 'number' && Number.isInteger(e.exit) && e.exit >= 0 && e.exit < 256) ||
      (typeof e.exit === 'string' && exitKinds.includes(e.exit));
    if (!ok)
      fail(step.at, `step "${step.name}": expect.exit is an exit code or a kind (${exitKinds.join(', ')})`);
  }
  for (const v of e.values) {
    checkPath(v.path, v.at, `the expected value at ${v.path}`, fail);
    if (v.matches !== undefined)
      try {
        new RegExp(v.matches);
      } catch (err) {
        fail(v.at, `the check matches of ${v.path}: ${(err as Error).message}`);
      }
  }
}

/** The defaults of the file's variables may name other variables: a cycle among them is an error. */
function checkVars(s: Scenario, given: ReadonlySet<string>, fail: Fail): void {
  const byName = new Map(s.vars.map((v) => [v.name, v]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, chain: string[]): void => {
    const v = byName.get(name);
    if (!v || given.has(name) || state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      const cycle = [...chain.slice(chain.indexOf(name)), name];
      return fail(v.at, `a cycle among the variables: ${cycle.map((n) => '${' + n + '}').join(' → ')}`);
    }
    state.set(name, 'visiting');
    for (const r of v.refs) visit(r.name, [...chain, name]);
    state.set(name, 'done');
  };
  for (const v of s.vars) {
    if (v.value === null && !given.has(v.name))
      fail(
        v.at,
        `variable ${v.name} is required and not given: --var ${v.name}=…, --vars FILE or MPAY_VAR_${v.name}${v.name === 'otp' ? ' (or --otp-stdin, or run it on a terminal to be asked)' : ''}`,
      );
    visit(v.name, []);
    for (const r of v.refs)
      if (r.name !== runReference && !byName.has(r.name) && !given.has(r.name))
        fail(r.at, `\${${r.name}} in variable ${v.name} is not a variable`);
  }
}

function checkReferences(s: Scenario, given: ReadonlySet<string>, fail: Fail): void {
  const vars = new Set([...s.vars.map((v) => v.name), ...given]);
  const capturedAt = new Map<string, ScenarioStep>();
  for (const step of s.steps)
    for (const c of step.capture) if (!capturedAt.has(c.name)) capturedAt.set(c.name, step);
  for (const step of s.steps) {
    for (const c of step.capture)
      if (vars.has(c.name)) fail(c.at, `capture ${c.name} has the name of a variable: rename one`);
    for (const r of step.refs) checkReference(r, step, vars, capturedAt, fail);
    // A name is shown before its step runs (the live question, a step not run): variables only.
    for (const r of step.nameRefs)
      if (r.name !== runReference && !vars.has(r.name))
        fail(
          r.at,
          `\${${r.name}} in the name of step "${step.name}" is not a variable: a name may use variables and \${run.reference}, not captures (it is shown before the step runs)`,
        );
  }
}

function checkReference(
  r: Reference,
  step: ScenarioStep,
  vars: ReadonlySet<string>,
  capturedAt: Map<string, ScenarioStep>,
  fail: Fail,
): void {
  if (r.name === runReference || vars.has(r.name)) return;
  const by = capturedAt.get(r.name);
  if (!by)
    return fail(
      r.at,
      `\${${r.name}} is undefined: neither a variable (--var ${r.name}=…) nor a capture of an earlier step`,
    );
  if (by === step)
    return fail(r.at, `a cycle: step "${step.name}" uses \${${r.name}}, which it captures itself`);
  if (by.index > step.index)
    fail(
      r.at,
      `a cycle: step "${step.name}" uses \${${r.name}}, captured only by the later step "${by.name}" (${posText(by.at)})`,
    );
}
