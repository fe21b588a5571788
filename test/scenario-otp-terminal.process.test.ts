// `mpay run` of a saved withdrawal on a real pseudo-terminal (tmux): the one-time code the scenario
// requires (${otp}) is asked when its step comes, after the steps before it were sent (the server has
// the initiate and the confirmation that sent the code when the question shows), masked; answered, the
// withdrawal is processed on that server.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { Tmux } from './tmux.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let recorder: Sb;
let other: Sb;
let saved: string;

beforeAll(async () => {
  [recorder, other] = await Promise.all([sandbox(), sandbox()]);
  const dir = tempDir();
  const har = join(dir, 'wd.har');
  const w = await mpay(
    ['withdraw', ...customerArgs({ amount: '20' }), '--otp', demoMerchant.otp, '--trace', har, '--json'],
    { env: cliEnv(recorder, tempDir()) },
  );
  expect(w.code, w.stderr).toBe(0);
  saved = join(dir, 'wd.yaml');
  const s = await mpay(['replay', har, '--save-scenario', saved], { env: cliEnv(recorder, tempDir()) });
  expect(s.code, s.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all([recorder.close(), other.close()]);
});

it('asks for the code when the confirming step comes, the steps before it sent; answered, the withdrawal is processed', async () => {
  const t = new Tmux('run-otp');
  try {
    t.start(['run', saved], cliEnv(other, tempDir()));
    const asked = await t.waitFor(/one-time code the scenario confirms a withdrawal with/, 60_000);
    // the steps before it ran and were shown, and the server had them, before the question
    expect(asked).toMatch(/POST \/payments\/withdraw\/initiate/);
    expect(await requestCounts(other)).toMatchObject({
      'POST /payments/withdraw/initiate': 1,
      'POST /payments/withdraw/processed': 1,
    });
    t.answer(demoMerchant.otp);
    const screen = await t.waitFor(/EXIT=\d+/, 60_000);
    expect(screen).toMatch(/EXIT=0/);
    expect(screen).not.toContain(demoMerchant.otp);
    expect(await requestCounts(other)).toMatchObject({ 'POST /payments/withdraw/processed': 2 });
    const txs = (await (await fetch(`${other.url}/_sandbox/transactions`)).json()) as Array<{
      status: string;
      paid?: boolean;
    }>;
    expect(txs[0]).toMatchObject({ status: 'pending', paid: true });
  } finally {
    t.kill();
  }
}, 150_000);
