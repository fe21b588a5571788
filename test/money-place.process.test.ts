// A transaction belongs to the server and merchant it was made with (issue: money safety, round two). Two
// sandboxes, two profiles: a batch, a resume, a single step and a confirm continue a record only where it
// lives, refuse elsewhere naming where, and a line mpay prints for a person to paste reaches the
// transaction's own server whatever the environment it is pasted in says. Each test looks at both
// servers' request counts and at the journal, not only at one answer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  printedCommand,
  requestCount,
  requestCounts,
  runPrinted,
  sandbox,
  setFaults,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let a: Sb;
let b: Sb;
beforeAll(async () => {
  a = await sandbox();
  b = await sandbox();
});
afterAll(async () => {
  await a.close();
  await b.close();
});

/** The requests a server received that move money or could: every POST but token generate. */
async function moneyPosts(sb: Sb): Promise<number> {
  const counts = await requestCounts(sb);
  return Object.entries(counts)
    .filter(([route]) => route.startsWith('POST /payments/'))
    .reduce((n, [, c]) => n + c, 0);
}

describe('a command mpay prints for a person reaches the transaction’s own server when pasted', () => {
  it('the one-time code step of a withdrawal stopped without a terminal', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_PROFILE: undefined });
    const r = await mpay(
      ['withdraw', ...customerArgs({ reference: 'paste-otp' }), '--base-url', a.url, '--no-input', '--json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().next).toBe('otp');
    const line = (r.json().resume as string).replace('<CODE>', '123456');
    const before = await requestCount(a, 'POST /payments/withdraw/processed');
    const atB = await moneyPosts(b);
    const pasted = await runPrinted(`${line} --json`, { ...env, MPAY_BASE_URL: b.url, MPAY_ENV: 'stage' });
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(pasted.json().status).toBe('pending');
    expect(await requestCount(a, 'POST /payments/withdraw/processed')).toBe(before + 1);
    expect(await moneyPosts(b)).toBe(atB);
  });

  it('the resume after a lost answer, from a profile whose name needs quoting', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg);
    const reference = 'lost-1';
    const profile = "o'brien $(touch pwned) ü";
    await setFaults(a, { faults: ['drop-after'], rate: 1, faultPaths: ['/payments/status/update'] });
    let r;
    try {
      r = await mpay(['deposit', ...customerArgs({ reference }), '--base-url', a.url, '--profile', profile], {
        env,
      });
    } finally {
      await setFaults(a, { rate: 0 });
    }
    expect(r.code, r.stderr).toBe(8);
    const resume = printedCommand(r.stderr, 'before `').replace(/`;.*$/, '');
    expect(resume).toBe(
      `mpay deposit --resume lost-1 --profile 'o'\\''brien $(touch pwned) ü' --env sandbox --base-url ${a.url}`,
    );
    const cwd = tempDir();
    const statusAtA = await requestCount(a, 'POST /payments/status/update');
    const atB = await moneyPosts(b);
    const pasted = await runPrinted(`cd ${cwd} && ${resume} --json`, { ...env, MPAY_BASE_URL: b.url });
    // The flow goes on at its own server: the status update again (the API takes it twice), then processed.
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(pasted.json()).toMatchObject({ reference, status: 'pending' });
    expect(await requestCount(a, 'POST /payments/status/update')).toBe(statusAtA + 1);
    expect(await moneyPosts(b)).toBe(atB);
    expect(() => readFileSync(join(cwd, 'pwned'))).toThrow(/ENOENT/);
  });
});
