// A scenario runs in memory that does not grow with its steps: its records are not kept (only --json's
// one document keeps them), its lines, --ndjson and reports are written as each step ends, the JUnit
// report from a temporary file of its cases. 8,000 steps in a process whose heap is bounded at 128 MB
// (before, a run kept 23-85 KB a step, and 384 MB ended at step 9,874 with no report): the run passes and
// its JUnit report holds every step. The peak for 100,000 steps is measured by `npm run bench`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bin, cliEnv, file, run, sandbox, tempDir } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const steps = 8_000;

it(
  `${steps} steps under a 128 MB heap: passed, the JUnit report complete`,
  { timeout: 900_000 },
  async () => {
    const dir = tempDir();
    const lines = ['name: many reads', 'steps:'];
    for (let i = 1; i <= steps; i++)
      lines.push(`  - name: read ${i}`, '    request: { method: GET, path: /merchant/currencies }');
    const scenario = file('many.yaml', `${lines.join('\n')}\n`);
    const junit = join(dir, 'r.xml');
    const r = await run(['run', scenario, '--ndjson', '--report', `junit=${junit}`], {
      env: cliEnv(sb, dir),
      command: [process.execPath, '--max-old-space-size=128', bin],
      timeoutMs: 880_000,
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(steps);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(junit, 'utf8'));
    const suite = doc.testsuites.testsuite;
    expect(doc.testsuites['@_tests']).toBe(String(steps));
    expect(doc.testsuites['@_failures']).toBe('0');
    expect(suite.testcase).toHaveLength(steps);
    expect(suite.testcase[steps - 1]['@_name']).toBe(`${steps}. read ${steps}`);
  },
);
