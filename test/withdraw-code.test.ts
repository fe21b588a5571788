import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('a withdrawal names the address it is paid out to; a deposit the one to send to', async () => {
  const env = cliEnv(sb, tempDir());
  const usd = { currency: 'USD', country: 'US', phone: '+15551234567', gateway: '5', amount: '50' };
  const w = await mpay(
    ['withdraw', ...customerArgs({ ...usd, reference: 'paid-out-1' }), '--otp', demoMerchant.otp],
    {
      env,
    },
  );
  expect(w.code, w.stderr).toBe(0);
  expect(w.stderr).toMatch(/\n {2}paid out to \S+ \(USDT on TRC20\)/);
  expect(w.stderr).not.toMatch(/send to/);
  const d = await mpay(['deposit', ...customerArgs({ ...usd, reference: 'send-to-1' })], { env });
  expect(d.code, d.stderr).toBe(0);
  expect(d.stderr).toMatch(/\n {2}send to \S+ \(USDT on TRC20\)/);
});
