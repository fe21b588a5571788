// `mpay replay TRACE --save-scenario FILE` tests what the trace showed: a withdrawal recorded on one sandbox,
// saved, and run on ANOTHER sandbox. The one-time code the trace confirmed is a required variable (${otp}):
// given by --var or --otp-stdin the withdrawal is processed there (the server's own state says so); without
// it the run fails before anything is sent, naming otp. Each step expects what its recorded answer showed
// beyond its status, so a confirmation that only sent a code again fails its step.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRun, type RunOptions } from '../src/commands/run/run.js';
import { Factory } from '../src/factory.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { memoryIO } from '../src/io/io.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { root } from './helpers.js';
import { cliEnv, customerArgs, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay, optionsOf } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let recorder: Sb;
let saved: string;

const transactions = async (sb: Sb) =>
  (await (await fetch(`${sb.url}/_sandbox/transactions`)).json()) as Array<{
    kind: string;
    status: string;
    paid?: boolean;
  }>;

beforeAll(async () => {
  recorder = await sandbox();
  const dir = tempDir();
  const har = join(dir, 'wd.har');
  // a phone that does not hold the sandbox's code, so that a search for the code means something
  const customer = customerArgs({
    amount: '20',
    'first-name': 'Kofi',
    phone: '+233209876540',
    email: 'kofi@example.com',
  });
  const w = await mpay(['withdraw', ...customer, '--otp', demoMerchant.otp, '--trace', har, '--json'], {
    env: cliEnv(recorder, tempDir()),
  });
  expect(w.code, w.stderr).toBe(0);
  saved = join(dir, 's.yaml');
  const s = await mpay(['replay', har, '--save-scenario', saved], { env: cliEnv(recorder, tempDir()) });
  expect(s.code, s.stderr).toBe(0);
});
afterAll(() => recorder.close());

/** Another sandbox, fresh, for one run of the saved scenario. */
async function elsewhere<T>(fn: (sb: Sb) => Promise<T>): Promise<T> {
  const sb = await sandbox();
  try {
    return await fn(sb);
  } finally {
    await sb.close();
  }
}

describe('a recorded withdrawal saved as a scenario', () => {
  it('requires the code as ${otp}, and expects the code sent, then the withdrawal processed', () => {
    const text = readFileSync(saved, 'utf8');
    expect(text).not.toContain('***');
    expect(text).toMatch(/^vars:\n(?:\s+.*\n)*?\s+otp: null$/m);
    expect(text).toContain('otp: ${otp}');
    // the first confirmation sent the code (data []), the second processed it (the transaction's status)
    expect(text).toMatch(/values:\n\s+success: true\n\s+data: \[\]/);
    expect(text).toMatch(/values:\n\s+success: true\n\s+data\.status: pending/);
    expect(text).not.toContain(demoMerchant.otp);
  });

  it('run on another sandbox with --var otp=…: the withdrawal is processed there', async () => {
    await elsewhere(async (sb) => {
      const r = await mpay(['run', saved, '--var', `otp=${demoMerchant.otp}`, '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ ok: true, failed: 0 });
      const [tx] = await transactions(sb);
      expect(tx).toMatchObject({ kind: 'withdraw', status: 'pending', paid: true });
      expect(r.stdout + r.stderr).not.toContain(demoMerchant.otp);
    });
  });

  it('or with --otp-stdin', async () => {
    await elsewhere(async (sb) => {
      const r = await mpay(['run', saved, '--otp-stdin', '--json'], {
        env: cliEnv(sb, tempDir()),
        input: `${demoMerchant.otp}\n`,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect((await transactions(sb))[0]).toMatchObject({ status: 'pending', paid: true });
    });
  });

  it('or asked on a terminal, masked', async () => {
    await elsewhere(async (sb) => {
      const r = await mpay(['run', saved], {
        env: cliEnv(sb, tempDir()),
        tty: true,
        input: `${demoMerchant.otp}\n`,
        width: 200,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toContain('The one-time code the scenario confirms a withdrawal with');
      expect(r.stdout + r.stderr).not.toContain(demoMerchant.otp);
      expect((await transactions(sb))[0]).toMatchObject({ status: 'pending', paid: true });
    });
  });

  it('asked on a terminal when its step needs it: the steps before it are sent first (scripted answers)', async () => {
    await elsewhere(async (sb) => {
      const env = cliEnv(sb, tempDir());
      const { options } = await optionsOf(['run', saved], env);
      const io = memoryIO({ env, tty: true, width: 200 });
      const f = new Factory(io, {}, 'mpay-test', env);
      // what the server had been sent when the code was asked: the event, not the clock
      let sentBefore: Record<string, number> | undefined;
      const prompter = new (class extends ScriptedPrompter {
        override async password(o: { message: string; validate?: (v: string) => true | string }) {
          sentBefore = await requestCounts(sb);
          return super.password(o);
        }
      })([demoMerchant.otp]);
      f.prompter = () => Promise.resolve(prompter);
      await runRun(options as RunOptions, f);
      expect(io.exitCode, io.stdoutText() + io.stderrText()).toBe(0);
      expect(prompter.asked).toEqual(['The one-time code the scenario confirms a withdrawal with']);
      // the initiate and the confirmation that sent the code went out before the question, not the last
      expect(sentBefore).toMatchObject({
        'POST /payments/withdraw/initiate': 1,
        'POST /payments/withdraw/processed': 1,
      });
      expect(await requestCounts(sb)).toMatchObject({ 'POST /payments/withdraw/processed': 2 });
      expect((await transactions(sb))[0]).toMatchObject({ status: 'pending', paid: true });
      expect(io.stdoutText() + io.stderrText()).not.toContain(demoMerchant.otp);
    });
  });

  it('without the code: refused before anything is sent, naming otp (exit 2)', async () => {
    await elsewhere(async (sb) => {
      const r = await mpay(['run', saved, '--json'], { env: cliEnv(sb, tempDir()) });
      expect(r.code).toBe(2);
      expect(r.json().error.message).toMatch(/variable otp is required and not given/);
      expect(await requestCounts(sb)).toEqual({});
    });
  });

  it('a confirmation that only sends the code again fails its step: the withdrawal left initiated', async () => {
    // the code left out of the last step, as a hand edit (or a scrubbed ***) would: the API answers 200
    // with the code sent again, which the status alone would pass
    const edited = join(tempDir(), 'no-code.yaml');
    writeFileSync(edited, readFileSync(saved, 'utf8').replace(/\n\s+otp: \$\{otp\}/, ''));
    await elsewhere(async (sb) => {
      const r = await mpay(['run', edited, '--var', `otp=${demoMerchant.otp}`, '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code).toBe(14);
      const steps = r.json().scenarios[0].steps as { outcome: string; failures?: { path?: string }[] }[];
      const failed = steps.filter((s) => s.outcome === 'failed');
      expect(failed).toHaveLength(1);
      expect(JSON.stringify(failed[0]!.failures)).toContain('data.status');
      expect((await transactions(sb))[0]).toMatchObject({ status: 'initiated' });
    });
  });
});

describe("docs/scenarios.md's withdrawal written by hand", () => {
  /** The example, as the doc prints it: the YAML block after the words that introduce it. */
  const example = () => {
    const doc = readFileSync(join(root, 'docs', 'scenarios.md'), 'utf8');
    const from = doc.indexOf('so a scenario written by hand that confirms a');
    const block = /```yaml\n([\s\S]*?)```/.exec(doc.slice(from));
    expect(from, 'the example is introduced in docs/scenarios.md').toBeGreaterThan(0);
    const file = join(tempDir(), 'withdraw-by-hand.yaml');
    writeFileSync(file, block![1]!);
    return file;
  };

  it('run as printed with --var otp=…: each answer as expected, the withdrawal processed on the server', async () => {
    await elsewhere(async (sb) => {
      const r = await mpay(['run', example(), '--var', `otp=${demoMerchant.otp}`, '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ ok: true, passed: 3, failed: 0 });
      expect((await transactions(sb))[0]).toMatchObject({ kind: 'withdraw', status: 'pending', paid: true });
    });
  });

  it('its confirmation without the code: the step fails (exit 14), the withdrawal left initiated', async () => {
    const file = example();
    writeFileSync(file, readFileSync(file, 'utf8').replace(/,\n\s+otp: '\$\{otp\}',/, ','));
    await elsewhere(async (sb) => {
      const r = await mpay(['run', file, '--var', `otp=${demoMerchant.otp}`, '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code).toBe(14);
      const steps = r.json().scenarios[0].steps as { step: string; outcome: string }[];
      expect(steps.map((x) => `${x.step}: ${x.outcome}`)).toEqual([
        'initiate: passed',
        'send the code: passed',
        'confirm the withdrawal: failed',
      ]);
      const [tx] = await transactions(sb);
      expect(tx).toMatchObject({ status: 'initiated' });
      expect(tx!.paid).toBeFalsy();
    });
  });
});
