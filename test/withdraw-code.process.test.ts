import { afterAll, beforeAll, expect, it } from 'vitest';
import { interruptionReport } from '../src/flows/standing.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, journalEvents, runPrinted, sandbox, tempDir } from './helpers.js';
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
  const last = journalEvents(cfg).at(-1);
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
