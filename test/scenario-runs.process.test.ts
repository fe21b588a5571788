// `mpay run` where the process is the subject: Ctrl-C on a real terminal (tmux), lines folded at 80
// columns, and --keep-going / --fail-fast as the real executable says them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Parser, type FinalResults } from 'tap-parser';
import { parse as parseJunit } from 'test-results-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioFailedExitCode } from '../src/common/errors.js';
import { cliEnv, file, holdingProxy, run, sandbox, tempDir, waitUntil } from './helpers.js';
import { mpay } from './in-process.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const junitOf = (path: string) => {
  const text = readFileSync(path, 'utf8');
  expect(XMLValidator.validate(text)).toBe(true);
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (n) => ['testsuite', 'testcase'].includes(n),
  }).parse(text).testsuites;
};

async function tapOf(path: string) {
  const children: FinalResults[] = [];
  const final = await new Promise<FinalResults>((resolve) => {
    const p = new Parser(resolve);
    p.on('child', (c: Parser) => c.on('complete', (res: FinalResults) => children.push(res)));
    p.end(readFileSync(path, 'utf8'));
  });
  return { final, children };
}

const held = `name: held
steps:
  - name: the countries
    run: countries
  - name: the currencies, held
    request: { method: GET, path: /public/currencies }
  - name: the countries again
    run: countries
`;

// its tests at once: each on a terminal, behind a holding proxy, in folders of its own
describe.skipIf(without('tmux'))('Ctrl-C on a terminal', { concurrent: true }, () => {
  it('the step in flight finishes, the rest are not run, the reports say so, exit 130', async () => {
    const slow = await holdingProxy(sb.url, '/public/currencies');
    const t = new Tmux('scenario-ctrl-c');
    const dir = tempDir();
    const [junit, tap] = [join(dir, 'r.xml'), join(dir, 'r.tap')];
    try {
      const env = cliEnv(slow, tempDir());
      t.start(['run', file('held.yaml', held), '--report', `junit=${junit}`, '--report', `tap=${tap}`], env);
      await waitUntil('the second step in flight', () => slow.held() === 1, 60_000);
      // said before the first step: what runs; on the terminal, the step in flight
      const before = await t.waitFor(/… 2\. the currencies, held/);
      expect(before).toMatch(/^mpay: running .*held\.yaml: 3 steps against sandbox/m);
      t.keys('C-c');
      await t.waitFor(/no step starts after it \(Ctrl-C again to stop now\)/);
      slow.release();
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/^EXIT=130$/m);
      // the interruption's note on a line of its own, not after the progress text
      expect(screen).toMatch(/^mpay: interrupted: step 2 \(the currencies, held\) finishes/m);
      expect(screen).toMatch(/^ok {3}2\. the currencies, held: GET \/public\/currencies → HTTP 200/m);
      expect(screen).toMatch(/^skip 3\. the countries again: not run: interrupted \(Ctrl-C\)$/m);
      expect(screen).toMatch(/^INTERRUPTED: 2 passed, 0 failed, 1 not run, of 3 steps$/m);
      const cases = junitOf(junit).testsuite[0].testcase;
      expect(cases[2].skipped.message).toBe('not run: interrupted (Ctrl-C)');
      const { final } = await tapOf(tap);
      expect(final.ok).toBe(false);
      expect(final.bailout).toMatch(/interrupted \(Ctrl-C\)/);
    } finally {
      t.kill();
      await slow.close();
    }
  }, 120_000);

  it('a second Ctrl-C stops at once: the step in flight is marked interrupted (JUnit error, TAP not ok), exit 130', async () => {
    const slow = await holdingProxy(sb.url, '/public/currencies');
    const t = new Tmux('scenario-ctrl-c-twice');
    const dir = tempDir();
    const [junit, tap] = [join(dir, 'r.xml'), join(dir, 'r.tap')];
    try {
      const env = cliEnv(slow, tempDir());
      t.start(['run', file('held.yaml', held), '--report', `junit=${junit}`, '--report', `tap=${tap}`], env);
      await waitUntil('the second step in flight', () => slow.held() === 1, 60_000);
      t.keys('C-c');
      await t.waitFor(/Ctrl-C again to stop now/);
      t.keys('C-c');
      // the request is still held: only the second Ctrl-C can have ended the run
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(slow.held()).toBe(1);
      expect(screen).toMatch(/^EXIT=130$/m);
      expect(screen).toMatch(/^INTR 2\. the currencies, held: interrupted \(Ctrl-C\) while in flight/m);
      expect(screen).toMatch(/^INTERRUPTED: 1 passed, 0 failed, 1 interrupted, 1 not run, of 3 steps$/m);
      const suites = junitOf(junit);
      expect(suites.errors).toBe('1');
      const read = parseJunit({ type: 'junit', files: [junit] });
      expect(read.errors).toBe(1);
      expect(read.suites[0]!.cases.map((c) => c.status)).toEqual(['PASS', 'FAIL', 'SKIP']);
      expect(suites.testsuite[0].testcase[1].error.type).toBe('interrupted');
      expect(suites.testsuite[0].testcase[2].skipped.message).toMatch(/interrupted/);
      const { final, children } = await tapOf(tap);
      expect(final.bailout).toMatch(/interrupted/);
      expect(children[0]!.failures[0]!.name).toMatch(/^2\. the currencies, held/);
    } finally {
      t.kill();
      await slow.close();
    }
  }, 120_000);

  it("at 80 columns each line folds, and a failed step shows the API's message beside its expectation", async () => {
    const t = new Tmux('scenario-fold');
    try {
      const long = `name: folded
vars: { who: Ama }
steps:
  - name: a status update for \${who}, whose hash token the API does not know at all
    request:
      method: POST
      path: /payments/status/update
      form: { hash_token: "${'0'.repeat(64)}", status: initiated, gateway_id: 1 }
    expect: { status: 200 }
`;
      t.start(['run', file('long.yaml', long)], cliEnv(sb, tempDir()), undefined, 80);
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=14/);
      // capture-pane -J joins what the terminal wrapped: a line over 80 here was not folded by mpay
      for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
      const text = screen.replace(/\n\s+(?=\S)/g, ' ');
      expect(text).toMatch(
        /HTTP status: expected 200, got 422 the API said: Validation failed\. \(hash_token: The selected hash token is invalid\.\)/,
      );
      expect(text).toMatch(/FAIL 1\. a status update for Ama, whose hash token/);
    } finally {
      t.kill();
    }
  }, 120_000);
});

describe('--keep-going or --fail-fast, said', () => {
  const two = `steps:
  - name: fails
    run: countries
    expect: { values: { "[0].code": XX } }
  - name: after it
    run: countries
`;
  it('--keep-going runs the steps after a failed one, --fail-fast does not; not both; the start says which', async () => {
    const env = cliEnv(sb, tempDir());
    const path = file('two.yaml', two);
    const on = await mpay(['run', path, '--keep-going', '--json'], { env });
    expect(on.code).toBe(scenarioFailedExitCode);
    expect(on.json()).toMatchObject({ passed: 1, failed: 1, skipped: 0 });
    expect(on.stderr).toMatch(/--keep-going: a failed step does not stop the others/);
    const stop = await mpay(['run', path, '--fail-fast', '--json'], { env });
    expect(stop.json()).toMatchObject({ passed: 0, failed: 1, skipped: 1 });
    expect(stop.stderr).toMatch(/--fail-fast: a failed step stops the run/);
    const both = await mpay(['run', path, '--fail-fast', '--keep-going'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--keep-going|--fail-fast/);
    const help = await run(['run', '--help'], { env });
    expect(help.stdout).toMatch(/--keep-going\s+the default/);
  });
});
