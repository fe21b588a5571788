// A live money call with no one to ask (#47 item 5): without a terminal and without --yes it exits 16, kind
// confirmation_required (a code of its own, not a bad flag's 2), names the server, the amount and --yes,
// sends and journals nothing, and never suggests calling the server a sandbox.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { judgeServer } from '../src/config/live.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('a live batch without --yes exits 16, with the total of the rows it would send', async () => {
  const env = cliEnv(sb, tempDir(), { MPAY_ENV: 'live' });
  const csv = file(
    'live-rows.csv',
    [
      'currency,country,amount,first_name,phone,email,gateway',
      'GHS,GH,10,Ama,+233201234567,ama@example.com,1',
      'GHS,GH,20,Kofi,+233201234568,kofi@example.com,1',
    ].join('\n'),
  );
  const r = await mpay(['deposit', 'batch', csv, '--json'], { env });
  expect(r.code, r.stderr).toBe(16);
  expect(r.stderr).toMatch(/Nothing was sent: 2 deposits of 30(\.0+)? GHS in all would move real money/);
  expect(r.stderr).toContain('--yes');
  expect(r.stderr).not.toMatch(/config set/);
});

it('an unknown remote server is live without a hint to re-label it', () => {
  const verdict = judgeServer('https://payments.example.com', 'sandbox', {});
  expect(verdict.live).toBe(true);
  expect(verdict.why).toBe('not a loopback address, and no profile keeps it as a sandbox or stage server');
});
