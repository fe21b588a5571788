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

/** `mpay token --export`: the line that sets $MPAY_TOKEN. */
async function tokenExport(url: string): Promise<string> {
  const exported = await mpay(['token', '--export'], { env: cliEnv({ url }, tempDir()) });
  expect(exported.stdout).toMatch(/^export MPAY_TOKEN='[0-9a-f]+'\n$/);
  return exported.stdout;
}

/** Runs a shell script with the variables a person would set, the token from `mpay token --export`. */
async function shell(script: string, url: string): Promise<string> {
  const exported = { stdout: await tokenExport(url) };
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
  expect(curl).toContain(`'authorization: Bearer '"$MPAY_TOKEN"`);
  expect(curl).toContain(`"merchant_key":"'"$MPAY_MERCHANT_KEY"'"`);
  expect(sb.state.list().some((t) => t.reference === 'paste-1')).toBe(false);
  const answer = JSON.parse(await shell(curl, sb.url));
  expect(answer).toMatchObject({ success: true, data: { customer_transaction_id: 'paste-1' } });
  expect(sb.state.list().find((t) => t.reference === 'paste-1')?.status).toBe('initiated');
});

it("history show --curl gives a withdrawal's requests in order, and the script replays it with a fresh reference, stopping at the first failure", async () => {
  const env = cliEnv(sb, tempDir());
  // A wrong code first, then the right one: the journal has two confirmations; the script sends one.
  const wrong = await mpay(
    ['withdraw', ...customerArgs({ reference: 'paste-w' }), '--otp', '000000', '--json'],
    {
      env,
    },
  );
  expect(wrong.code).toBe(4);
  const done = await mpay(['withdraw', '--resume', 'paste-w', '--otp', demoMerchant.otp, '--json'], { env });
  expect(done.json().status).toBe('pending');
  const shown = await mpay(['history', 'show', 'paste-w', '--curl', '--json'], { env });
  const commands: string[] = shown.json().commands;
  expect(commands.flatMap((c) => /restapi\/v1\/([a-z/]+)/.exec(c)?.[1] ?? [])).toEqual([
    'payments/withdraw/initiate',
    'payments/status/update',
    'payments/withdraw/processed',
    'payments/withdraw/processed',
  ]);
  const text = commands.join('\n');
  for (const secret of [demoMerchant.merchantKey, demoMerchant.apiKey]) expect(text).not.toContain(secret);
  expect(text).toContain(`"otp":"'"$MPAY_OTP"'"`);
  expect(text).not.toMatch(/otp[^,]*(123456|000000)/);
  const script = commands.join('\n');
  // On the same server: a fresh reference, so the API takes the initiate again.
  const before = sb.state.list().length;
  const out = await shell(`MPAY_REF=paste-w-again\n${script}`, sb.url);
  const answers = out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  expect(answers.map((a) => a.success)).toEqual([true, true, true, true]);
  expect(sb.state.list()).toHaveLength(before + 1);
  expect(sb.state.list().find((t) => t.reference === 'paste-w-again')?.status).toBe('pending');
  // A wrong code: the script stops at that call, with the API's answer, and sends nothing after it.
  const failed = await promisify(execFile)(
    'bash',
    ['-c', `${await tokenExport(sb.url)}MPAY_REF=paste-w-bad\n${script}`],
    {
      env: {
        PATH: process.env.PATH,
        MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
        MPAY_API_KEY: demoMerchant.apiKey,
        MPAY_OTP: '999999',
      },
    },
  ).then(
    () => ({ code: 0, stdout: '' }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  expect(failed.code).not.toBe(0);
  expect(failed.stdout.trim().split('\n').at(-1)).toMatch(/"otp":\["The otp is invalid\."\]/);
  expect(sb.state.list().find((t) => t.reference === 'paste-w-bad')?.status).toBe('initiated');
  const human = await mpay(['history', 'show', 'paste-w', '--curl'], { env });
  expect(human.stdout).toMatch(/^# The requests mpay sent for paste-w, in order/);
  expect(human.stdout).toMatch(
    /eval "\$\(mpay token --export --profile default --env sandbox --base-url http:\/\/127\.0\.0\.1:\d+\)"/,
  );
});
