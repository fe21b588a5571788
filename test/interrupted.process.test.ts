// A flow stopped after initiate always says where the transaction stands and how to continue it: Ctrl-C
// while a request is in flight (a real SIGINT to bin/run.js), a wrong one-time code given with --otp,
// and an empty --otp-stdin, refused before anything is printed or sent. (Ctrl-C at a prompt and the
// last wrong code at a prompt are covered by the PTY and scripted-prompt tests.)
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  bin,
  cliEnv,
  customerArgs,
  sandbox,
  setFaults,
  tempDir,
  requestCount,
  waitUntil,
  ndjson,
  journalText,
} from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox({ slowMs: 5000 });
});
afterAll(() => sb.close());

const count = (route: string) => requestCount(sb, route);

// The three run at once: the one whose withdrawal is sent has a sandbox of its own (the last counts sb's).
it.concurrent(
  'Ctrl-C while the initiate request is in flight: it finishes, journaled, then exit 130, what is known, and the command to continue',
  async () => {
    const cfg = tempDir();
    await setFaults(sb, { faults: ['slow'], rate: 1, faultPaths: ['/payments/initiate'] });
    const before = await count('POST /payments/initiate');
    const statusBefore = await count('POST /payments/status/update');
    const child = spawn(process.execPath, [bin, 'deposit', ...customerArgs({ reference: 'int-1' })], {
      env: { ...process.env, ...cliEnv(sb, cfg), CI: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    try {
      // Wait until the request has reached the sandbox, then interrupt.
      await waitUntil(
        'the initiate request to reach the sandbox',
        async () => (await count('POST /payments/initiate')) !== before,
      );
      child.kill('SIGINT');
      const code = await new Promise((r) => child.on('close', (c, signal) => r(c ?? signal)));
      expect(code, stderr).toBe(130);
      expect(stderr).toMatch(
        /mpay: interrupted: the initiate request in flight finishes and is journaled with its answer; no step starts after it \(Ctrl-C again to stop now\)/,
      );
      expect(stderr).toMatch(
        /mpay: interrupted after the initiate request of int-1 was answered \(ok\); nothing more was sent/,
      );
      // no header of a step that never started
      expect(stderr).not.toMatch(/Status update|Wallet address update/);
      expect(stderr).toMatch(
        /hint: continue with `mpay deposit --resume int-1 --profile default --env sandbox --base-url http:\/\/127\.0\.0\.1:\d+`/,
      );
      const journal = ndjson<{ step: string; outcome: string }>(journalText(cfg));
      expect(journal.map((l) => `${l.step} ${l.outcome}`)).toEqual([
        'initiate sent',
        'initiate ok',
        'gateway ok',
      ]);
      expect(await count('POST /payments/status/update')).toBe(statusBefore);
    } finally {
      await setFaults(sb, { rate: 0 });
    }
  },
);
