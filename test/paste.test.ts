// Requests a person can paste: the curl of --dry-run and of `history show --curl` refer to $MPAY_TOKEN,
// $MPAY_MERCHANT_KEY, $MPAY_API_KEY and $MPAY_OTP instead of printing secrets, and work as printed once
// those are set (`eval "$(mpay token --export)"`). Each test runs the printed commands with bash against a
// sandbox and sees them succeed.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/** Runs a shell script with the variables a person would set, the token from `mpay token --export`. */
async function shell(script: string, url: string): Promise<string> {
  const exported = await mpay(['token', '--export'], { env: cliEnv({ url }, tempDir()) });
  expect(exported.stdout).toMatch(/^export MPAY_TOKEN='[0-9a-f]+'\n$/);
  const { stdout } = await promisify(execFile)(
    'bash',
    ['-c', `set -euo pipefail\n${exported.stdout}${script}`],
    {
      env: {
        PATH: process.env.PATH,
        MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
        MPAY_API_KEY: demoMerchant.apiKey,
        MPAY_OTP: demoMerchant.otp,
      },
    },
  );
  return stdout;
}

it('the curl of --dry-run holds no secret and, pasted, creates the transaction', async () => {
  const env = cliEnv(sb, tempDir());
  const dry = await mpay(
    ['deposit', 'initiate', ...customerArgs({ reference: 'paste-1', gateway: '' }), '--dry-run', '--json'],
    { env },
  );
  const curl: string = dry.json().curl;
  for (const secret of [demoMerchant.merchantKey, demoMerchant.apiKey]) expect(curl).not.toContain(secret);
  expect(curl).toContain('Bearer $MPAY_TOKEN');
  expect(curl).toContain('\\"merchant_key\\":\\"$MPAY_MERCHANT_KEY\\"');
  expect(sb.state.list().some((t) => t.reference === 'paste-1')).toBe(false);
  const answer = JSON.parse(await shell(curl, sb.url));
  expect(answer).toMatchObject({ success: true, data: { customer_transaction_id: 'paste-1' } });
  expect(sb.state.list().find((t) => t.reference === 'paste-1')?.status).toBe('initiated');
});

it("history show --curl gives a withdrawal's requests in order, and they replay it on a fresh server", async () => {
  const env = cliEnv(sb, tempDir());
  const done = await mpay(
    ['withdraw', ...customerArgs({ reference: 'paste-w' }), '--otp', demoMerchant.otp, '--json'],
    { env },
  );
  expect(done.json().status).toBe('pending');
  const shown = await mpay(['history', 'show', 'paste-w', '--curl', '--json'], { env });
  const commands: string[] = shown.json().commands;
  expect(commands.map((c) => /restapi\/v1\/([a-z/]+)/.exec(c)?.[1])).toEqual([
    'payments/withdraw/initiate',
    'payments/status/update',
    'payments/withdraw/processed',
    'payments/withdraw/processed',
  ]);
  const text = commands.join('\n');
  for (const secret of [demoMerchant.merchantKey, demoMerchant.apiKey]) expect(text).not.toContain(secret);
  expect(text).toContain('\\"otp\\":\\"$MPAY_OTP\\"');
  expect(text).not.toMatch(/otp[^,]*123456/);
  // A fresh sandbox, as a support engineer reproducing the case elsewhere would have.
  const fresh = await sandbox();
  try {
    const script = commands.map((c) => c.replaceAll(sb.url, fresh.url)).join('\n');
    const out = await shell(script, fresh.url);
    const answers = out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(answers.map((a) => a.success)).toEqual([true, true, true]);
    expect(fresh.state.list().find((t) => t.reference === 'paste-w')?.status).toBe('pending');
  } finally {
    await fresh.close();
  }
  const human = await mpay(['history', 'show', 'paste-w', '--curl'], { env });
  expect(human.stdout).toMatch(/^# The requests mpay sent for paste-w, in order/);
  expect(human.stdout).toMatch(/eval "\$\(mpay token --export\)"/);
});
