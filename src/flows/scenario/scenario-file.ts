// A scenario file of `mpay run` (docs/scenarios.md), read into typed steps with the place of every value
// in the file, so that each mistake is reported at file:line:column before anything is sent. YAML 1.2
// through the `yaml` package (JSON is YAML too): its nodes keep their source ranges.
import {
  LineCounter,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  visit,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { nearest } from '../../common/nearest.js';
import { endpoints } from '../../api/endpoints.js';
import { heapBound } from '../batch/heap-bound.js';
import { stepParts, type StepParts } from './scenario-parts.js';

export * from './scenario-types.js';
import type {
  CommandStep,
  Pos,
  Problem,
  Reference,
  Scenario,
  ScenarioStep,
  ValueCheck,
} from './scenario-types.js';
import { referencePattern } from './scenario-types.js';

class Reader {
  constructor(
    readonly file: string,
    private readonly lines: LineCounter,
    /** the lines of the file before the text read (a part of a large file, readInParts) */
    private readonly lineBase = 0,
    readonly problems: Problem[] = [],
  ) {}

  pos(node: Node | Pair | null | undefined, offset = 0): Pos {
    const n = node && 'range' in node ? node : node && 'key' in node ? (node.key as Node) : undefined;
    const at = n?.range ? n.range[0] + offset : 0;
    const lp = this.lines.linePos(at);
    return { file: this.file, line: lp.line + this.lineBase, col: lp.col };
  }

  fail(node: Node | Pair | null | undefined, message: string): void {
    this.problems.push({ at: this.pos(node), message });
  }

  /** the pairs of a mapping, with its keys as text; a key that is not a plain name is reported */
  pairs(node: unknown, what: string): Map<string, Pair> {
    const out = new Map<string, Pair>();
    if (!isMap(node)) {
      this.fail(node as Node, `${what} must be a mapping`);
      return out;
    }
    for (const p of (node as YAMLMap).items) {
      const key = isScalar(p.key) ? String(p.key.value) : undefined;
      if (key === undefined) this.fail(p.key as Node, `${what}: a key must be a plain name`);
      else out.set(key, p);
    }
    return out;
  }

  /** each `${…}` in a value, at its place in the file */
  refs(node: unknown, into: Reference[]): void {
    if (isScalar(node)) {
      if (typeof node.value !== 'string') return;
      const quoted = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
      const source = node.source ?? node.value;
      for (const m of source.matchAll(referencePattern)) {
        if (m[1] === undefined) continue;
        into.push({ name: m[1].trim(), at: this.pos(node, quoted + (m.index ?? 0)) });
      }
    } else if (isMap(node)) for (const p of node.items) this.refs(p.value, into);
    else if (isSeq(node)) for (const i of node.items) this.refs(i, into);
  }

  unknownKeys(keys: Map<string, Pair>, known: readonly string[], what: string): void {
    for (const [k, p] of keys) if (!known.includes(k)) this.fail(p, `unknown key "${k}" in ${what}`);
  }
}

const topKeys = ['name', 'environment', 'vars', 'after_money_failure', 'steps'] as const;

/**
 * A file this large is read a part at a time (readInParts): the `yaml` package's document of a file
 * keeps about 9 KB a step, and a whole file of 100,000 steps took 1.5 GB before its first step ran.
 */
export const partedFromBytes = 2 ** 20;

/** Reads a scenario file's text; the problems found are returned with it, none of them thrown. */
export function readScenario(
  file: string,
  text: string,
  opts: { partedFromBytes?: number } = {},
): { scenario: Scenario; problems: Problem[] } {
  if (text.length >= (opts.partedFromBytes ?? partedFromBytes)) {
    const parts = stepParts(text);
    const read = parts && readInParts(file, parts);
    if (read) return read;
  }
  const scenario: Scenario = { file, name: file, vars: [], afterMoneyFailure: 'stop', steps: [] };
  const problems: Problem[] = [];
  const { doc, r } = parsed(file, text, 0, problems, problems);
  if (problems.length) return { scenario, problems };
  const root = doc.contents;
  const stepsNode = isSeq(root) ? root : undefined;
  if (!stepsNode) {
    const top = readHead(r, root, scenario);
    const steps = top.get('steps')?.value;
    if (!isSeq(steps)) r.fail(top.get('steps') ?? (root as Node), 'a scenario needs `steps:`, a list');
    else readSteps(r, steps.items, scenario);
  } else readSteps(r, stepsNode.items, scenario);
  return { scenario, problems: r.problems };
}

/**
 * A text parsed: its YAML errors and aliases go to `syntax`, and what its Reader finds later to
 * `problems`, each at its place in the file (`lineBase` lines come before the text).
 */
function parsed(file: string, text: string, lineBase: number, syntax: Problem[], problems: Problem[]) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const r = new Reader(file, lines, lineBase, problems);
  for (const e of doc.errors) {
    // without prettyErrors the error has only its offset: its line and column come from the counter
    const lp = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
    syntax.push({
      at: { file, line: lp.line + lineBase, col: lp.col },
      message: e.message.split('\n')[0]!,
    });
  }
  // An alias (*name) is refused where it stands: what mpay reads of a node is its own value, and an alias
  // read so would be sent as the parser's node ({"source": "name"}), never the anchored value.
  visit(doc, {
    Alias(_key, node) {
      syntax.push({
        at: r.pos(node),
        message: `an alias (*${node.source}) is not read: write the value itself where it is used`,
      });
    },
  });
  return { doc, r };
}

/** The scenario's own keys (name, environment, vars, steps), read into `scenario`. */
function readHead(r: Reader, root: unknown, scenario: Scenario): Map<string, Pair> {
  const top = r.pairs(root, 'a scenario (name, environment, vars, steps)');
  r.unknownKeys(top, topKeys, 'the scenario (name, environment, vars, after_money_failure, steps)');
  readTop(r, top, scenario);
  return top;
}

/**
 * A large file read a part at a time, each part's document let go before the next is made: the same
 * scenario and the same problems, at the same places, as the whole file read at once. Undefined when a
 * part is not a list of steps after all: then the file is read whole.
 */
function readInParts(
  file: string,
  { head, parts }: StepParts,
): { scenario: Scenario; problems: Problem[] } | undefined {
  const scenario: Scenario = { file, name: file, vars: [], afterMoneyFailure: 'stop', steps: [] };
  const syntax: Problem[] = [];
  const problems: Problem[] = [];
  const top = parsed(file, head, 0, syntax, problems);
  readHead(top.r, top.doc.contents, scenario);
  let steps = 0;
  // the parts' documents are garbage once read, but V8 grows its heap before it collects them: a full
  // collection every 25 parts (5,000 steps) when the heap holds more than 64 MB keeps the read's peak
  // near what it keeps (flows/batch/heap-bound.ts)
  const collect = heapBound(64);
  for (const [n, part] of parts.entries()) {
    if (n % 25 === 24) collect();
    const { doc, r } = parsed(file, part.text, part.lineBase, syntax, problems);
    if (!isSeq(doc.contents)) return undefined;
    // after a YAML error only the others are looked for: a file that does not parse is not read further
    if (!syntax.length) readSteps(r, doc.contents.items, scenario, steps);
    steps += doc.contents.items.length;
  }
  // a YAML error in a part may be the cut's (a quoted text over several lines): the whole file is read
  // then, and its own errors, if any, are the ones told
  return syntax.length ? undefined : { scenario, problems };
}

function readTop(r: Reader, top: Map<string, Pair>, s: Scenario): void {
  const name = top.get('name');
  if (name) s.name = String((name.value as Node & { toJSON(): unknown })?.toJSON?.() ?? s.file);
  const env = top.get('environment');
  if (env) {
    const v = isScalar(env.value) ? env.value.value : undefined;
    if (typeof v !== 'string' || !['sandbox', 'stage', 'live'].includes(v))
      r.fail(env.value as Node, 'environment must be sandbox, stage or live');
    else s.environment = { value: v, at: r.pos(env.value as Node) };
  }
  const after = top.get('after_money_failure');
  if (after) {
    const v = isScalar(after.value) ? after.value.value : undefined;
    if (v !== 'stop' && v !== 'continue')
      r.fail(after.value as Node, 'after_money_failure must be stop or continue');
    else s.afterMoneyFailure = v;
  }
  const vars = top.get('vars');
  if (vars) {
    for (const [k, p] of r.pairs(vars.value, 'vars')) {
      const refs: Reference[] = [];
      r.refs(p.value, refs);
      const value = p.value === null ? null : (p.value as Node & { toJSON(): unknown }).toJSON();
      s.vars.push({ name: k, value, at: r.pos(p), refs });
    }
  }
}

const stepKeys = ['name', 'run', 'args', 'flags', 'request', 'capture', 'expect'] as const;
const requestKeys = ['method', 'path', 'credentials', 'json', 'form'] as const;

function readSteps(r: Reader, items: unknown[], s: Scenario, before = 0): void {
  items.forEach((item, n) => {
    const i = before + n;
    const keys = r.pairs(item, `step ${i + 1}`);
    if (!isMap(item)) return;
    const at = r.pos(item as Node);
    const nameNode = keys.get('name')?.value;
    const name = isScalar(nameNode) ? String(nameNode.value) : `step ${i + 1}`;
    const step: ScenarioStep = {
      index: i + 1,
      name,
      at,
      capture: [],
      expect: { values: [] },
      refs: [],
      nameRefs: [],
    };
    r.refs(nameNode, step.nameRefs);
    for (const [k, p] of [...keys])
      if (!stepKeys.includes(k as (typeof stepKeys)[number])) {
        // A key one typo away from a step's own (`captur:`) is that key mistyped: said so, and read as it
        // (when the step does not give it as well), so that its captures, flags or command are known and
        // their mistype brings no other problems after it (a capture "never defined"). Nothing runs.
        const meant = nearest(k, [...stepKeys]).find((m) => !keys.has(m));
        if (meant) {
          r.fail(
            p,
            `unknown key "${k}" in step "${name}": did you mean \`${meant}:\`? (a step's keys: ${stepKeys.join(', ')})`,
          );
          keys.delete(k);
          keys.set(meant, p);
        } else
          r.fail(
            p,
            `unknown step kind "${k}" in step "${name}": a step is \`run:\` (an mpay command) or \`request:\` (a raw request)`,
          );
      }
    if (keys.has('run') && keys.has('request'))
      r.fail(keys.get('request'), `step "${name}" has both \`run:\` and \`request:\`: give one`);
    else if (!keys.has('run') && !keys.has('request'))
      r.fail(item as Node, `step "${name}" needs \`run:\` (an mpay command) or \`request:\` (a raw request)`);
    if (keys.has('run')) readCommand(r, keys, step);
    if (keys.has('request')) readRequest(r, keys.get('request')!, step);
    if (keys.has('capture')) readCaptures(r, keys.get('capture')!, step);
    if (keys.has('expect')) readExpect(r, keys.get('expect')!, step);
    s.steps.push(step);
  });
}

const json = (n: unknown): unknown => (n === null ? null : (n as { toJSON(): unknown }).toJSON());

function readCommand(r: Reader, keys: Map<string, Pair>, step: ScenarioStep): void {
  const runPair = keys.get('run')!;
  const v = json(runPair.value);
  const words = Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.trim().split(/\s+/) : [];
  if (!words.length || words[0] === '') r.fail(runPair, `step "${step.name}": run: names an mpay command`);
  const args = keys.get('args');
  const argList = args ? json(args.value) : [];
  if (!Array.isArray(argList)) r.fail(args, `step "${step.name}": args must be a list`);
  else if (args) r.refs(args.value, step.refs);
  const flags: CommandStep['flags'] = [];
  const flagPair = keys.get('flags');
  if (flagPair)
    for (const [name, p] of r.pairs(flagPair.value, `the flags of step "${step.name}"`)) {
      flags.push({ name, value: json(p.value), at: r.pos(p) });
      r.refs(p.value, step.refs);
    }
  step.run = { words, args: Array.isArray(argList) ? argList : [], flags, at: r.pos(runPair.value as Node) };
}

function readRequest(r: Reader, pair: Pair, step: ScenarioStep): void {
  const keys = r.pairs(pair.value, `the request of step "${step.name}"`);
  r.unknownKeys(keys, requestKeys, `the request of step "${step.name}" (${requestKeys.join(', ')})`);
  const method = String(json(keys.get('method')?.value ?? null) ?? 'GET').toUpperCase();
  if (!['GET', 'POST'].includes(method))
    r.fail(keys.get('method'), `step "${step.name}": method must be GET or POST`);
  const pathPair = keys.get('path');
  if (!pathPair || typeof json(pathPair.value) !== 'string')
    r.fail(
      pathPair ?? pair,
      `step "${step.name}": the request needs a path, e.g. /${endpoints.merchantCurrencies.path}`,
    );
  else r.refs(pathPair.value, step.refs);
  if (keys.has('json') && keys.has('form'))
    r.fail(keys.get('form'), `step "${step.name}": give the body as json: or form:, not both`);
  const bodyPair = keys.get('json') ?? keys.get('form');
  const body = bodyPair ? json(bodyPair.value) : undefined;
  if (bodyPair && (!body || typeof body !== 'object' || Array.isArray(body)))
    r.fail(bodyPair, `step "${step.name}": the body must be a mapping of fields`);
  if (bodyPair) r.refs(bodyPair.value, step.refs);
  if (method === 'GET' && bodyPair) r.fail(bodyPair, `step "${step.name}": a GET takes no body`);
  step.request = {
    method,
    path: pathPair ? json(pathPair.value) : '',
    credentials: json(keys.get('credentials')?.value ?? null) === true,
    body: body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined,
    encoding: keys.has('form') ? 'form' : keys.has('json') ? 'json' : undefined,
    at: r.pos(pair.value as Node),
  };
}

const namePattern = /^[A-Za-z_][\w-]*$/;

function readCaptures(r: Reader, pair: Pair, step: ScenarioStep): void {
  for (const [name, p] of r.pairs(pair.value, `the captures of step "${step.name}"`)) {
    const path = json(p.value);
    if (!namePattern.test(name))
      r.fail(p, `capture name "${name}": letters, digits, _ and -, not starting with a digit`);
    r.refs(p.value, step.refs);
    if (typeof path !== 'string' || !path)
      r.fail(p.value as Node, `capture ${name}: a JMESPath, e.g. data.has_token`);
    else step.capture.push({ name, path, at: r.pos(p.value as Node) });
  }
}

const expectKeys = ['exit', 'status', 'values'] as const;
const checkKeys = ['equals', 'matches', 'exists', 'min', 'max', 'between'] as const;

function readExpect(r: Reader, pair: Pair, step: ScenarioStep): void {
  const keys = r.pairs(pair.value, `the expectations of step "${step.name}"`);
  r.unknownKeys(keys, expectKeys, `the expectations of step "${step.name}" (exit, status, values)`);
  const exit = keys.get('exit');
  if (exit) step.expect.exit = json(exit.value) as number | string;
  const status = keys.get('status');
  if (status) {
    const v = json(status.value);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 100 || v > 599)
      r.fail(status.value as Node, `step "${step.name}": status is an HTTP status, 100 to 599`);
    else step.expect.status = v;
  }
  const values = keys.get('values');
  if (!values) return;
  r.refs(values.value, step.refs);
  for (const [path, p] of r.pairs(values.value, `the expected values of step "${step.name}"`)) {
    const at = r.pos(p);
    r.refs(p.key, step.refs);
    if (!isMap(p.value)) {
      step.expect.values.push({ path, at, equals: json(p.value) });
      continue;
    }
    const c = r.pairs(p.value, `the check of ${path}`);
    r.unknownKeys(c, checkKeys, `the check of ${path} (${checkKeys.join(', ')})`);
    const check: ValueCheck = { path, at };
    for (const [k, q] of c) {
      const v = json(q.value);
      if (k === 'equals') check.equals = v;
      else if (k === 'matches' && typeof v === 'string') check.matches = v;
      else if (k === 'exists' && typeof v === 'boolean') check.exists = v;
      else if ((k === 'min' || k === 'max') && typeof v === 'number') check[k] = v;
      else if (k === 'between' && Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === 'number'))
        [check.min, check.max] = v as [number, number];
      else if ((checkKeys as readonly string[]).includes(k))
        r.fail(q.value as Node, `the check ${k} of ${path}: ${checkHelp[k]}`);
    }
    step.expect.values.push(check);
  }
}

const checkHelp: Record<string, string> = {
  matches: 'a regular expression, as a string',
  exists: 'true or false',
  min: 'a number',
  max: 'a number',
  between: 'two numbers, [min, max]',
};
