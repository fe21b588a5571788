// mpay run FILE…: the examples against the sandbox and against the second seed, each kind of failed
// expectation with its expected and actual values, the output a step at a time (terminal lines, --json,
// --ndjson), the JUnit and TAP reports read back by real consumers (fast-xml-parser and test-results-parser,
// tap-parser), the variables (--var, --vars, MPAY_VAR_*, never mpay's own credentials) and the substitution
// done once.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Parser, type FinalResults } from 'tap-parser';
import { parse as parseJunit } from 'test-results-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioFailedExitCode } from '../src/common/errors.js';
import { cliEnv, file, ndjson, root, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let demo: Sb;
let alt: Sb;
const smoke = join(root, 'examples', 'credentials-smoke.yaml');
const wallet = join(root, 'examples', 'wallet-step-failure.yaml');

beforeAll(async () => {
  [demo, alt] = await Promise.all([sandbox(), sandbox({ seed: 'alt' })]);
});
afterAll(async () => {
  await Promise.all([demo.close(), alt.close()]);
});

/** A step record of --json's document, by its name. */
const stepOf = (doc: { scenarios: { steps: { step: string }[] }[] }, name: string) =>
  doc.scenarios.flatMap((s) => s.steps).find((s) => s.step === name) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the examples', () => {
  it('the wallet-step reproduction leaves the journal saying what the server holds: success, nothing to resume', async () => {
    const env = cliEnv(demo, tempDir());
    const r = await mpay(['run', wallet, '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const reference = `${r.json().scenarios[0].reference}-usd`;
    // the last step's expected 404 ("not initiated") says the status moved on, not where to: the status the
    // update's answer gave stays (the server's own), and a settled record offers no --resume
    const held = demo.state.list().find((t) => t.reference === reference);
    expect(held?.status).toBe('success');
    const shown = await mpay(['history', 'show', reference, '--json'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json()).toMatchObject({ status: 'success' });
    expect(JSON.stringify(shown.json())).not.toContain('--resume');
  });

  it('pass against the sandbox: the smoke test and the wallet-step reproduction, one document', async () => {
    const env = cliEnv(demo, tempDir());
    const r = await mpay(['run', smoke, wallet, '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ ok: true, passed: 8, failed: 0, skipped: 0 });
    expect(doc.scenarios.map((s: { name: string }) => s.name)).toEqual([
      'credentials smoke test',
      'wallet step failure (USD deposit)',
    ]);
    const again = stepOf(doc, 'the wallet update again, once the status has moved on, fails');
    expect(again).toMatchObject({ outcome: 'passed', status: 404, kind: 'state', exit: 5, money: true });
    // the fresh reference of the run, in what was sent
    expect(stepOf(doc, 'initiate the USD deposit').sent).toContain(
      `--reference=${doc.scenarios[1].reference}-usd`,
    );
  });

  it('pass against the second seed (other ids and spellings), the gateway given by --var', async () => {
    const env = cliEnv(alt, tempDir());
    const r = await mpay(['run', smoke, wallet, '--var', 'gateway=42', '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ ok: true, passed: 8 });
    // the default gateway (5) is not the alt seed's: the reproduction says so, and stops its money steps
    const d = await mpay(['run', wallet, '--json'], { env });
    expect(d.code).toBe(scenarioFailedExitCode);
    const first = stepOf(d.json(), 'initiate the USD deposit');
    expect(first.failures[0]).toMatchObject({ what: 'value', check: 'equals', expected: 1, actual: 0 });
    expect(stepOf(d.json(), 'the status update on the same gateway')).toMatchObject({
      outcome: 'skipped',
      skipped: expect.stringMatching(/money step "initiate the USD deposit" failed/),
    });
  });
});

const failing = `name: each kind of failure
after_money_failure: continue
steps:
  - name: exit code
    run: status
    args: ["${'0'.repeat(64)}"]
    flags: { status: failed, gateway: 1 }
    expect: { exit: 0 }
  - name: exit kind
    request: { method: GET, path: /merchant/currencies }
    expect: { exit: auth }
  - name: http status
    request: { method: GET, path: /public/countries }
    expect: { status: 201 }
  - name: equals
    run: currencies
    expect: { values: { "[0].code": USD } }
  - name: matches
    run: currencies
    expect: { values: { "[0].name": { matches: "^Euro" } } }
  - name: exists
    run: currencies
    expect: { values: { "[0].nothing_here": { exists: true }, "[0].code": { exists: false } } }
  - name: range
    run: currencies
    expect: { values: { "[0].minimum_deposite": { between: [5, 10] }, "[0].maximum_deposite": { max: 3 } } }
  - name: capture
    run: currencies
    capture: { nope: "[0].no_such_field" }
  - name: after it
    request: { method: GET, path: "/public/countries?x=\${nope}" }
  - name: holds
    run: countries
    expect: { values: { "length(@)": { min: 1 }, "[0].code": { matches: "^[A-Z]{2}$" } } }
`;

describe('each kind of failed expectation', () => {
  it('is a failed step with the path, the expected and the actual value; exit 14', async () => {
    const env = cliEnv(demo, tempDir());
    const r = await mpay(['run', file('fail.yaml', failing), '--json'], { env });
    expect(r.code).toBe(scenarioFailedExitCode);
    const doc = r.json();
    expect(doc).toMatchObject({ ok: false, passed: 1, failed: 8, skipped: 1 });
    const f = (name: string) => stepOf(doc, name).failures;
    expect(f('exit code')).toEqual([{ what: 'exit', expected: 0, actual: '4 (validation)' }]);
    expect(f('exit kind')).toEqual([{ what: 'exit', expected: 'auth', actual: '0' }]);
    expect(f('http status')).toEqual([{ what: 'status', expected: 201, actual: 200 }]);
    expect(f('equals')).toEqual([
      { what: 'value', path: '[0].code', check: 'equals', expected: 'USD', actual: 'GHS' },
    ]);
    expect(f('matches')[0]).toMatchObject({ check: 'matches', expected: '^Euro', actual: 'Ghana Cedi' });
    expect(f('exists').map((x: { check: string; expected: boolean }) => [x.check, x.expected])).toEqual([
      ['exists', true],
      ['exists', false],
    ]);
    expect(f('range').map((x: { expected: string; actual: number }) => [x.expected, x.actual])).toEqual([
      ['5..10', 1],
      ['-∞..3', 50000],
    ]);
    expect(f('capture')).toEqual([
      { what: 'capture', path: '[0].no_such_field', check: 'nope', expected: 'a value', actual: null },
    ]);
    expect(stepOf(doc, 'after it')).toMatchObject({
      outcome: 'skipped',
      skipped: expect.stringMatching(/\$\{nope\} not captured/),
    });
    expect(stepOf(doc, 'holds').outcome).toBe('passed');
  });
});

describe('the output a step at a time', () => {
  it('on a terminal: a line a step, the failure under it; --fail-fast runs nothing after the first', async () => {
    const env = cliEnv(demo, tempDir());
    const r = await mpay(['run', file('fail.yaml', failing), '--fail-fast'], { env });
    expect(r.code).toBe(scenarioFailedExitCode);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^# each kind of failure \(.*fail\.yaml\)$/);
    expect(lines[1]).toMatch(
      /^FAIL 1\. exit code \[money\]: mpay status 0{64} --status=failed --gateway=1 → HTTP 422, exit 4 \(validation\)$/,
    );
    expect(lines[2]).toMatch(/exit: expected 0, got 4 \(validation\)/);
    expect(lines.filter((l) => /^skip /.test(l))).toHaveLength(9);
    expect(lines.at(-1)).toBe('FAILED: 0 passed, 1 failed, 9 not run, of 10 steps');
  });

  it('--ndjson: one record a step, each a JSON line', async () => {
    const env = cliEnv(demo, tempDir());
    const r = await mpay(['run', smoke, '--ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    const recs = ndjson(r.stdout);
    expect(recs.map((x) => [x.index, x.outcome])).toEqual([
      [1, 'passed'],
      [2, 'passed'],
      [3, 'passed'],
      [4, 'passed'],
    ]);
    expect(recs[2].captured).toEqual({ minimum: 1 });
  });
});

describe('reports read by their consumers', () => {
  it('JUnit XML: a suite a file, a case a step, failures and skips where they were', async () => {
    const dir = tempDir();
    const env = cliEnv(demo, dir);
    const junit = join(dir, 'junit.xml');
    const tap = join(dir, 'results.tap');
    const r = await mpay(
      ['run', smoke, file('fail.yaml', failing), '--report', `junit=${junit}`, '--report', `tap=${tap}`],
      { env },
    );
    expect(r.code).toBe(scenarioFailedExitCode);
    const text = readFileSync(junit, 'utf8');
    expect(XMLValidator.validate(text)).toBe(true);
    const xml = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (n) => ['testsuite', 'testcase'].includes(n),
    }).parse(text);
    const suites = xml.testsuites.testsuite;
    expect(
      suites.map((s: { name: string; tests: string; failures: string; skipped: string }) => [
        s.name,
        s.tests,
        s.failures,
        s.skipped,
      ]),
    ).toEqual([
      ['credentials smoke test', '4', '0', '0'],
      ['each kind of failure', '10', '8', '1'],
    ]);
    const cases = suites[1].testcase;
    expect(cases[0].name).toBe('1. exit code');
    expect(cases[0].failure.message).toBe('exit: expected 0, got 4 (validation)');
    expect(cases[8].skipped.message).toMatch(/not captured/);
    expect(cases[9].failure).toBeUndefined();
    expect(xml.testsuites.tests).toBe('14');
    // and as a maintained JUnit reader of CI tools reads it (test-results-parser: it counts the skipped
    // apart from the total)
    const read = parseJunit({ type: 'junit', files: [junit] });
    expect([read.status, read.failed, read.skipped]).toEqual(['FAIL', 8, 1]);
    expect(read.suites.map((s) => [s.name, s.status, s.cases.length])).toEqual([
      ['credentials smoke test', 'PASS', 4],
      ['each kind of failure', 'FAIL', 10],
    ]);
    const kinds = read.suites[1]!.cases.map((c) => c.status);
    expect(kinds.filter((k) => k === 'FAIL')).toHaveLength(8);
    expect(kinds[8]).toBe('SKIP');
    expect(read.suites[1]!.cases[0]!.failure).toBe('exit: expected 0, got 4 (validation)');
  });

  it('TAP 14: a subtest a file, a test point a step', async () => {
    const dir = tempDir();
    const env = cliEnv(demo, dir);
    const tap = join(dir, 'results.tap');
    await mpay(['run', smoke, file('fail.yaml', failing), '--report', `tap=${tap}`], { env });
    const children: FinalResults[] = [];
    const final = await new Promise<FinalResults>((resolve) => {
      const p = new Parser(resolve);
      p.on('child', (c: Parser) => c.on('complete', (res: FinalResults) => children.push(res)));
      p.end(readFileSync(tap, 'utf8'));
    });
    expect(final).toMatchObject({ ok: false, count: 2, pass: 1, fail: 1 });
    expect(children.map((c) => [c.ok, c.count, c.pass, c.fail, c.skip])).toEqual([
      [true, 4, 4, 0, 0],
      [false, 10, 2, 8, 1],
    ]);
    expect(children[1]!.failures[0]!.name).toBe('1. exit code');
    expect(children[1]!.failures[0]!.diag).toMatchObject({
      failures: ['exit: expected 0, got 4 (validation)'],
    });
  });
});

describe('variables and the one substitution', () => {
  const vars = `name: vars
vars:
  a: from-file
  b: "\${a}-and-more"
steps:
  - name: shows
    run: currencies
    expect:
      values:
        "[0].code": { equals: "a=\${a} b=\${b} c=\${c} ref=\${run.reference}" }
`;

  it('--var over MPAY_VAR_* over --vars over the file; a given value holding ${…} stays literal', async () => {
    const dir = tempDir();
    const env = cliEnv(demo, dir, { MPAY_VAR_c: 'from-env', MPAY_VAR_a: 'env-a' });
    const varsFile = file('vars.yaml', 'c: from-vars-file\nb: "${run.reference}"\n');
    const r = await mpay(['run', file('v.yaml', vars), '--vars', varsFile, '--var', 'a=${c}', '--json'], {
      env,
    });
    const doc = r.json();
    const expected = stepOf(doc, 'shows').failures[0].expected;
    // a from --var, as given (not read again as ${c}); b from the vars file, literal; c from the environment
    expect(expected).toBe('a=${c} b=${run.reference} c=from-env ref=' + doc.scenarios[0].reference);
    expect(doc.scenarios[0].reference).toMatch(/^scn-/);
  });

  it("a file's default is a template over the others, substituted once; mpay's credentials are no variables", async () => {
    const env = cliEnv(demo, tempDir(), { MPAY_VAR_c: 'see' });
    const r = await mpay(['run', file('v.yaml', vars), '--json'], { env });
    expect(stepOf(r.json(), 'shows').failures[0].expected).toBe(
      `a=from-file b=from-file-and-more c=see ref=${r.json().scenarios[0].reference}`,
    );
    const creds = await mpay(
      [
        'run',
        file('k.yaml', 'steps:\n  - run: currencies\n    expect: { values: { x: "${MPAY_API_KEY}" } }\n'),
      ],
      { env },
    );
    expect(creds.code).toBe(2);
    expect(creds.stderr).toMatch(/k\.yaml:3:29: \$\{MPAY_API_KEY\} is undefined/);
    expect(`${creds.stdout}${creds.stderr}`).not.toContain('ak_sandbox_demo');
    const own = await mpay(['run', file('v.yaml', vars), '--var', 'run.reference=mine'], { env });
    expect(own.code).toBe(2);
    expect(own.stderr).toMatch(/Invalid variable name "run\.reference"/);
  });
});

describe('JSON scenarios', () => {
  it('are read by the same parser: they run, and a mistake is at its line and column', async () => {
    const env = cliEnv(demo, tempDir());
    const steps = [{ name: 'lists', run: 'countries', expect: { values: { '[0].code': { exists: true } } } }];
    const good = await mpay(
      ['run', file('ok.json', JSON.stringify({ name: 'json', steps }, null, 2)), '--json'],
      { env },
    );
    expect(good.code, good.stderr).toBe(0);
    expect(good.json()).toMatchObject({ ok: true, passed: 1 });
    const text = JSON.stringify(
      { steps: [{ name: 'lists', run: 'countries', flags: { colour: true } }] },
      null,
      2,
    );
    const bad = await mpay(['run', file('bad.json', text)], { env });
    expect(bad.code).toBe(2);
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('"colour"'));
    expect(bad.stderr).toContain(
      `bad.json:${line + 1}:${lines[line]!.indexOf('"colour"') + 1}: step "lists": unknown flag --colour of \`mpay countries\``,
    );
  });
});

describe("a new user's trial", () => {
  it('a YAML syntax error is at its own line and column; --var and --report may come before the files', async () => {
    const env = cliEnv(demo, tempDir());
    const dup = file('dup-key.yaml', 'name: x\nname: y\nsteps: []\n');
    const r = await mpay(['run', dup], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${dup}:2:1: Map keys must be unique`);
    const report = join(tempDir(), 'r.xml');
    const ok = await mpay(['run', '--var', 'currency=GHS', '--report', `junit=${report}`, smoke], { env });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(readFileSync(report, 'utf8')).toContain('credentials smoke test');
  });

  it('a run that ends before its reports leaves no earlier report behind; two reports to one file are refused', async () => {
    const env = cliEnv(demo, tempDir());
    const stale = join(tempDir(), 'stale.xml');
    writeFileSync(stale, '<testsuites name="an earlier run"/>');
    const bad = file('bad-for-report.yaml', 'name: x\nname: y\nsteps: []\n');
    const r = await mpay(['run', bad, '--report', `junit=${stale}`], { env });
    expect(r.code).toBe(2);
    expect(existsSync(stale)).toBe(false);
    const same = await mpay(['run', smoke, '--report', `junit=${stale}`, '--report', `tap=${stale}`], {
      env,
    });
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/Two --report flags write .*stale\.xml/);
  });

  it("the smoke test's merchant currencies need the merchant's credentials", async () => {
    const env = cliEnv(demo, tempDir(), { MPAY_MERCHANT_KEY: undefined, MPAY_API_KEY: undefined });
    const r = await mpay(['run', smoke, '--json'], { env });
    expect(r.code).toBe(scenarioFailedExitCode);
    expect(stepOf(r.json(), "the merchant's currencies include GHS")).toMatchObject({ outcome: 'failed' });
  });
});
