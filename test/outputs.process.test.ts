import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitCodes } from '../src/api/errors.js';
import { bin, cliEnv, file, requestCounts, run, sandbox, tempDir } from './helpers.js';

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

it('a report that cannot be written after steps ran is exit 15, the results on stdout, what was sent said', async () => {
  const dir = tempDir();
  const before = (await requestCounts(sb))['POST /payments/initiate'] ?? 0;
  // a file size limit for the process (ulimit -f, in KB): the report's writes fail with EFBIG mid-run;
  // the journal (SQLite, its WAL) needs far less than the limit for its one transaction, the report more
  const limited = ['sh', '-c', 'ulimit -f 256; exec "$0" "$@"', process.execPath, bin];
  const r = await run(['run', file('s.yaml', initiate(1000)), '--report', `junit=${join(dir, 'r.xml')}`], {
    env: cliEnv(sb, dir),
    command: limited,
  });
  expect(r.code, r.stderr).toBe(exitCodes.output_failed);
  expect((await requestCounts(sb))['POST /payments/initiate']).toBe(before + 1);
  // the results: every step's line, and the count
  expect(r.stdout).toMatch(/^ok {3}1\. initiate \[money\]/m);
  expect(r.stdout).toMatch(/^ok {3}1001\. read 1000/m);
  expect(r.stdout).toMatch(/PASSED: 1001 passed, 0 failed, 0 not run, of 1001 steps/);
  expect(r.stderr).toMatch(/the junit report .*r\.xml could not be written \(EFBIG\) after 1001 steps ran/);
});
