// A withdrawal as a newcomer meets it (#47 item 8): after Ctrl-C at the code's prompt the hint continues
// with --otp-stdin (a code on the command line lands in the shell's history), and it runs as printed; a
// wallet address of a withdrawal is the one it is paid out to, not one to send to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { interruptionReport } from '../src/flows/interrupted.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, ndjson, runPrinted, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('the hint after Ctrl-C at the code continues with --otp-stdin, and runs as printed with the code piped in', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const started = await mpay(
    ['withdraw', ...customerArgs({ reference: 'code-stdin-1' }), '--no-input', '--json'],
    {
      env,
    },
  );
  expect(started.code, started.stderr).toBe(0);
  expect(started.json().next).toBe('otp');
  // what the journal last wrote is what a Ctrl-C at the code's prompt reports from
  const last = ndjson(readFileSync(join(cfg, 'journal', 'default.sandbox.jsonl'), 'utf8')).at(-1);
  const report = interruptionReport(last);
  expect(report).not.toMatch(/--otp </);
  const command = /`(mpay withdraw --resume code-stdin-1 --otp-stdin[^`]*)`/.exec(report)?.[1];
  expect(command, report).toBeTruthy();
  const ran = await runPrinted(`printf %s ${demoMerchant.otp} | ${command} --json`, {
    ...cliEnv(undefined, cfg),
    MPAY_BASE_URL: 'http://127.0.0.1:9',
    MPAY_PROFILE: 'other',
    MPAY_ENV: 'stage',
  });
  expect(ran.code, ran.stderr).toBe(0);
  expect(ran.json()).toMatchObject({ reference: 'code-stdin-1', status: 'pending' });
});
