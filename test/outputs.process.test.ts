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
  (_, i) => `  - name: read ${i + 1} with a long name so that the report grows quickly ${'x'.repeat(60)}
    request: { method: GET, path: /merchant/currencies }
`,
).join('')}`;

it('a report that cannot be written after steps ran is exit 15, the results on stdout, what was sent said', async () => {
  const dir = tempDir();
  const before = (await requestCounts(sb))['POST /payments/initiate'] ?? 0;
  // a file size limit for the process (ulimit -f, in KB): the report's writes fail with EFBIG mid-run
  const limited = ['sh', '-c', 'ulimit -f 6; exec "$0" "$@"', process.execPath, bin];
  const r = await run(['run', file('s.yaml', initiate(60)), '--report', `junit=${join(dir, 'r.xml')}`], {
    env: cliEnv(sb, dir),
    command: limited,
  });
  expect(r.code, r.stderr).toBe(exitCodes.output_failed);
  expect((await requestCounts(sb))['POST /payments/initiate']).toBe(before + 1);
  // the results: every step's line, and the count
  expect(r.stdout).toMatch(/^ok {3}1\. initiate \[money\]/m);
  expect(r.stdout).toMatch(/^ok {3}61\. read 60/m);
  expect(r.stdout).toMatch(/PASSED: 61 passed, 0 failed, 0 not run, of 61 steps/);
  expect(r.stderr).toMatch(/the junit report .*r\.xml could not be written \(EFBIG\) after 61 steps ran/);
});
