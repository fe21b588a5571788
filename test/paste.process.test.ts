// Requests a person can paste: the curl of --dry-run and of `history show --curl` refer to $MPAY_TOKEN,
// $MPAY_MERCHANT_KEY, $MPAY_API_KEY and $MPAY_OTP instead of printing secrets, and work as printed once
// those are set (`eval "$(mpay token --export)"`). Each test runs the printed commands with bash against a
// sandbox and sees them succeed.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, file, sandbox, tempDir } from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/** A suite's tests at once, a minute for a process to start on a loaded machine. */
const together = { concurrent: true, timeout: 120_000 };

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

// The tests at once; the two that count the sandbox's transactions, each on a sandbox of its own.
it.concurrent('the curl of --dry-run holds no secret and, pasted, creates the transaction', async () => {
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

it.concurrent(
  "history show --curl gives a withdrawal's requests in order, and the script replays it with a fresh reference, stopping at the first failure",
  async ({ onTestFinished }) => {
    const sb = await sandbox();
    onTestFinished(() => sb.close());
    const env = cliEnv(sb, tempDir());
    // A wrong code first, then the right one: the journal has two confirmations; the script sends one.
    const wrong = await mpay(
      ['withdraw', ...customerArgs({ reference: 'paste-w' }), '--otp', '000000', '--json'],
      {
        env,
      },
    );
    expect(wrong.code).toBe(4);
    const done = await mpay(['withdraw', '--resume', 'paste-w', '--otp', demoMerchant.otp, '--json'], {
      env,
    });
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
  },
);

describe("#33 item 8: a withdrawal's script and its one-time code", together, () => {
  /** A withdrawal confirmed with its code, and its script from `history show --curl` in a file. */
  async function withdrawalScript(reference: string, server = sb) {
    const env = cliEnv(server, tempDir());
    const done = await mpay(
      ['withdraw', ...customerArgs({ reference }), '--otp', demoMerchant.otp, '--json'],
      {
        env,
      },
    );
    expect(done.code, done.stderr).toBe(0);
    const shown = await mpay(['history', 'show', reference, '--curl'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/# Each run makes a NEW withdrawal, which mpay does not journal/);
    return { path: file(`${reference}.sh`, shown.stdout), token: await tokenExport(server.url) };
  }
  const secrets = { MPAY_MERCHANT_KEY: demoMerchant.merchantKey, MPAY_API_KEY: demoMerchant.apiKey };
  const tokenOf = (exported: string) => /MPAY_TOKEN='([0-9a-f]+)'/.exec(exported)![1]!;

  it('without a code or a terminal it stops after the code is sent and prints the one line that finishes that withdrawal', async ({
    onTestFinished,
  }) => {
    const sb = await sandbox();
    onTestFinished(() => sb.close());
    const { path, token } = await withdrawalScript('otp-script-1', sb);
    const env = {
      PATH: process.env.PATH,
      MPAY_TOKEN: tokenOf(token),
      MPAY_REF: 'otp-script-1-again',
      ...secrets,
    };
    const before = sb.state.list().length;
    const stopped = await promisify(execFile)('bash', [path], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toMatch(
      /This script makes a NEW withdrawal \(a fresh reference\), which mpay does not journal/,
    );
    expect(sb.state.list()).toHaveLength(before + 1);
    const made = sb.state.list().find((t) => t.reference === 'otp-script-1-again')!;
    expect(made.status).toBe('initiated');
    const line = /^ {2}(MPAY_FINISH_HASH=\S+ MPAY_OTP=<CODE> bash \S+)$/m.exec(stopped.stderr)?.[1];
    expect(line, stopped.stderr).toBeDefined();
    // The line, with the code, finishes that withdrawal and makes no other.
    await promisify(execFile)('bash', ['-c', line!.replace('<CODE>', demoMerchant.otp)], { env });
    expect(sb.state.list()).toHaveLength(before + 1);
    expect(sb.state.list().find((t) => t.reference === 'otp-script-1-again')!.status).toBe('pending');
  });

  it.skipIf(without('tmux'))('on a terminal it asks for the code', async () => {
    const { path, token } = await withdrawalScript('otp-script-2');
    const t = new Tmux('otp-script');
    try {
      t.start([path], { MPAY_TOKEN: tokenOf(token), MPAY_REF: 'otp-script-2-again', ...secrets }, ['bash']);
      await t.waitFor(/The one-time code the customer received: $/m, 60_000);
      expect(sb.state.list().find((t) => t.reference === 'otp-script-2-again')!.status).toBe('initiated');
      t.answer(demoMerchant.otp);
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=0/);
      expect(sb.state.list().find((t) => t.reference === 'otp-script-2-again')!.status).toBe('pending');
    } finally {
      t.kill();
    }
  });
});
