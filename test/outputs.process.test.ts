import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitCodes } from '../src/common/errors.js';
import { bin, cliEnv, file, harEntry, harOf, requestCounts, run, sandbox, tempDir } from './helpers.js';
import { parse } from 'yaml';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const initiate = (n: number) => `name: a deposit, then reads
steps:
  - name: initiate
    run: deposit initiate
    flags:
      currency: GHS
      country: GH
      amount: "10"
      first-name: Ama
      phone: "+233201234567"
      email: ama@example.com
      reference: "\${run.reference}-1"
${Array.from(
  { length: n },
  (_, i) => `  - name: read ${i + 1} with a long name so that the report grows quickly ${'x'.repeat(400)}
    request: { method: GET, path: /merchant/currencies }
`,
).join('')}`;

/** mpay under a file size limit of 256 KB (ulimit -f): an output's writes fail with EFBIG mid-run. */
function runUnderFileLimit(args: string[], dir: string) {
  return run(args, {
    env: cliEnv(sb, dir),
    command: ['sh', '-c', 'ulimit -f 256; exec "$0" "$@"', process.execPath, bin],
    // a bound on a hung run, not a speed target: a thousand steps on a busy machine take a while
    timeoutMs: 180_000,
  });
}

it('a report that cannot be written after steps ran is exit 15, the results on stdout, what was sent said', async () => {
  const dir = tempDir();
  const before = (await requestCounts(sb))['POST /payments/initiate'] ?? 0;
  // a file size limit for the process (ulimit -f, in KB): the report's writes fail with EFBIG mid-run;
  // the journal (SQLite, its WAL) needs far less than the limit for its one transaction, the report more
  const r = await runUnderFileLimit(
    ['run', file('s.yaml', initiate(1000)), '--report', `junit=${join(dir, 'r.xml')}`],
    dir,
  );
  expect(r.code, r.stderr).toBe(exitCodes.output_failed);
  expect((await requestCounts(sb))['POST /payments/initiate']).toBe(before + 1);
  // the results: every step's line, and the count
  expect(r.stdout).toMatch(/^ok {3}1\. initiate \[money\]/m);
  expect(r.stdout).toMatch(/^ok {3}1001\. read 1000/m);
  expect(r.stdout).toMatch(/PASSED: 1001 passed, 0 failed, 0 not run, of 1001 steps/);
  expect(r.stderr).toMatch(/the junit report .*r\.xml could not be written \(EFBIG\) after 1001 steps ran/);
}, 200_000);

it('a --trace that cannot be written after requests left is exit 15: the run goes on, its results on stdout, what was sent said', async () => {
  const dir = tempDir();
  const before = (await requestCounts(sb))['POST /payments/initiate'] ?? 0;
  // The trace is written whole after each exchange (each answer's body in it): past 256 KB its write fails
  // with EFBIG, a few dozen reads after the deposit, while the journal's one transaction fits.
  const trace = join(dir, 't.har');
  const r = await runUnderFileLimit(['run', file('s.yaml', initiate(300)), '--trace', trace], dir);
  expect(r.code, r.stderr).toBe(exitCodes.output_failed);
  expect((await requestCounts(sb))['POST /payments/initiate']).toBe(before + 1);
  // every step ran and is on stdout, though the trace stopped
  expect(r.stdout).toMatch(/^ok {3}1\. initiate \[money\]/m);
  expect(r.stdout).toMatch(/PASSED: 301 passed, 0 failed, 0 not run, of 301 steps/);
  expect(r.stderr).toMatch(/the trace .*t\.har could not be written \(EFBIG\) after \d+ requests/);
  expect(r.stderr).toMatch(/what was sent stands/);
  // the file holds the last trace written whole, which a reader takes
  const har = JSON.parse(readFileSync(trace, 'utf8'));
  expect(har.log.entries.length).toBeGreaterThan(1);
}, 200_000);

it('a --save-scenario whose write fails (a full disk) puts the scenario on stdout: exit 15, saying nothing was sent', async () => {
  const dir = tempDir();
  const entries = Array.from({ length: 20 }, (_, i) =>
    harEntry(
      'payments/initiate',
      { currency_code: 'GHS', country_code: 'GH', amount: '10', customer_transaction_id: `ref-${i}` },
      { text: JSON.stringify({ success: true, data: { hash_token: `HASHtoken00000${i}A1` } }) },
    ),
  );
  const har = file('many.har', harOf(entries));
  const saved = join(dir, 'saved.yaml');
  // a file size limit of 1 KB: the scenario (20 steps) is larger
  const limited = ['sh', '-c', 'ulimit -f 1; exec "$0" "$@"', process.execPath, bin];
  const r = await run(['replay', har, '--save-scenario', saved], { env: cliEnv(sb, dir), command: limited });
  expect(r.code, r.stderr).toBe(exitCodes.output_failed);
  expect(r.stderr).toMatch(/the scenario .*saved\.yaml could not be written \(EFBIG\): nothing was sent/);
  // the scenario, whole, on stdout: it parses and holds every step
  const doc = parse(r.stdout) as { steps: unknown[] };
  expect(doc.steps).toHaveLength(20);
});
