// Nothing lost: mpay killed with SIGKILL at each step of both flows resumes to exactly one transaction;
// several mpay processes at once share the journal and the config without corrupting either; the
// sandbox keeps its answers right under concurrent load and its --data file survives SIGKILL. The mpay
// killed is a process of its own (bin/run.js); what looks at the journal after it and the resume run
// in-process (test/in-process.ts), which spares a Node start-up each. Every process a test starts dies
// with the test (onTestFinished) and with this worker (setpriv's parent-death signal).
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiInitiate,
  apiToken,
  setFaults,
  bin,
  cliEnv,
  customerArgs,
  sandbox,
  tempDir,
  waitUntil,
  ownProcess,
  journalEvents,
} from './helpers.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
type Finished = TestContext['onTestFinished'];

/** `argv` in a process that dies with the worker and with its test (ownProcess), its output ignored unless asked. */
function ownProcessOf(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; stdio?: StdioOptions },
  onTestFinished: Finished,
): ChildProcess {
  return ownProcess(argv, { env: opts.env ?? process.env, stdio: opts.stdio ?? 'ignore' }, onTestFinished);
}

/**
 * Each kill -9 test has a sandbox of its own, its faults its own. One after the other: each starts a Node
 * process, which is CPU, not a wait that running them at once would overlap.
 */
describe('kill -9 at each step, then --resume', { timeout: 90_000 }, () => {
  async function slowSandbox(onTestFinished: Finished): Promise<Sb> {
    const sb = await sandbox({ slowMs: 4000 });
    onTestFinished(() => sb.close());
    return sb;
  }

  /** Starts `args`, waits until the request to `path` is held by the sandbox, and kills mpay with SIGKILL. */
  async function killAt(
    sb: Sb,
    args: string[],
    env: Record<string, string>,
    path: string,
    onTestFinished: Finished,
  ): Promise<void> {
    await setFaults(sb, { faults: ['slow'], rate: 1, faultPaths: [path] });
    const seen = sb.logs.length;
    const child = ownProcessOf(
      [process.execPath, bin, ...args],
      { env: { ...process.env, ...env } },
      onTestFinished,
    );
    const exited = new Promise((r) => child.on('close', r));
    try {
      // a Node start and the steps before it: on a loaded machine, well beyond a second
      await waitUntil(
        `the sandbox to hold the request to ${path}`,
        () => sb.logs.slice(seen).some((l) => l.startsWith('fault slow') && l.includes(path)),
        60_000,
      );
    } finally {
      child.kill('SIGKILL');
      await exited;
      await setFaults(sb, { rate: 0 });
    }
  }

  const deposit = (ref: string) => [
    'deposit',
    ...customerArgs({
      currency: 'USD',
      country: 'US',
      amount: '50',
      phone: '+15551234567',
      gateway: '5',
      reference: ref,
    }),
    '--json',
  ];
  const withdraw = (ref: string) => [
    'withdraw',
    ...customerArgs({ amount: '12', 'first-name': 'Kofi', email: 'kofi@example.com', reference: ref }),
    '--json',
  ];

  for (const [step, path] of [
    ['initiate', '/payments/initiate'],
    ['wallet', '/crypto/wallet/address/update'],
    ['status', '/payments/status/update'],
    ['processed', '/payments/processed'],
  ] as const) {
    it(`deposit killed at ${step}`, async ({ onTestFinished }) => {
      const sb = await slowSandbox(onTestFinished);
      const env = cliEnv(sb, tempDir());
      const ref = `kill-dep-${step}`;
      await killAt(sb, deposit(ref), env, path, onTestFinished);
      const journal = await mpay(['history', 'show', ref, '--json'], { env });
      expect(journal.json().steps.at(-1)).toMatchObject({ step, outcome: 'sent' });
      const resumed = await mpay(['deposit', '--resume', ref, '--json'], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.json()).toMatchObject({ status: 'pending', reference: ref });
      expect(sb.state.list().filter((t) => t.reference === ref)).toHaveLength(1);
    });
  }

  for (const [step, path] of [
    ['initiate', '/payments/withdraw/initiate'],
    ['status', '/payments/status/update'],
    ['otp', '/payments/withdraw/processed'],
  ] as const) {
    it(`withdraw killed at ${step}`, async ({ onTestFinished }) => {
      const sb = await slowSandbox(onTestFinished);
      const env = cliEnv(sb, tempDir());
      const ref = `kill-wd-${step}`;
      await killAt(sb, withdraw(ref), env, path, onTestFinished);
      const resumed = await mpay(['withdraw', '--resume', ref, '--otp', demoMerchant.otp, '--json'], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.json()).toMatchObject({ status: 'pending', reference: ref });
      expect(sb.state.list().filter((t) => t.reference === ref)).toHaveLength(1);
    });
  }

  it('withdraw killed while confirming with the code', async ({ onTestFinished }) => {
    const sb = await slowSandbox(onTestFinished);
    const env = cliEnv(sb, tempDir());
    const ref = 'kill-wd-processed';
    const stopped = await mpay(withdraw(ref), { env });
    expect(stopped.json().next).toBe('otp');
    await killAt(
      sb,
      ['withdraw', 'process', ref, '--otp', demoMerchant.otp, '--json'],
      env,
      '/payments/withdraw/processed',
      onTestFinished,
    );
    const resumed = await mpay(['withdraw', '--resume', ref, '--otp', demoMerchant.otp, '--json'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json().status).toBe('pending');
    expect(sb.state.list().filter((t) => t.reference === ref && t.paid)).toHaveLength(1);
  });
});

/** What one of the processes of allAtOnce printed, and how it ended. */
interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs each command line as bin/run.js in a process of its own, all at once, as a script would (a private
 * home, none of the caller's MPAY_* or session bus variables), and waits for each one's close. Past the
 * deadline, fails loudly, naming each that had not ended and what it had printed, rather than a kill
 * whose code null reads as an exit (a loaded machine starts eight Node processes slowly, not wrongly); what
 * is left is killed when the test ends, however it ends.
 */
async function allAtOnce(
  runs: Array<{ argv: string[]; env: Record<string, string> }>,
  onTestFinished: Finished,
  deadlineMs = 90_000,
): Promise<Ended[]> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (
      !k.startsWith('MPAY_') &&
      !['CI', 'COLUMNS', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'].includes(k)
    )
      base[k] = v;
  const home = tempDir('mpay-home-');
  const outs = runs.map(() => ({ stdout: '', stderr: '', done: false }));
  const ended = runs.map(({ argv, env }, i) => {
    const child = ownProcessOf(
      [process.execPath, bin, ...argv],
      {
        env: { ...base, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), ...env, NO_COLOR: '1' },
        stdio: 'pipe',
      },
      onTestFinished,
    );
    child.stdin!.end();
    child.stdout!.on('data', (d) => (outs[i]!.stdout += d));
    child.stderr!.on('data', (d) => (outs[i]!.stderr += d));
    return new Promise<Ended>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        outs[i]!.done = true;
        resolve({ code, stdout: outs[i]!.stdout, stderr: outs[i]!.stderr });
      });
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const late = outs
        .map((o, i) =>
          o.done ? '' : `\n  ${runs[i]!.argv.join(' ')}: printed ${JSON.stringify(o.stdout + o.stderr)}`,
        )
        .join('');
      reject(
        new Error(`waited ${deadlineMs} ms for ${runs.length} mpay processes to end; these had not:${late}`),
      );
    }, deadlineMs);
  });
  try {
    return await Promise.race([Promise.all(ended), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// The processes are what is tested here (several at once on one config folder and journal); what reads
// the result afterwards runs in-process.
describe('several mpay processes at once', { timeout: 120_000 }, () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('flows in parallel share one journal and one token cache, and corrupt neither', async ({
    onTestFinished,
  }) => {
    const dir = tempDir();
    const env = cliEnv(sb, dir) as Record<string, string>;
    const n = 6;
    const results = await allAtOnce(
      Array.from({ length: n }, (_, i) => ({
        argv: ['deposit', ...customerArgs({ reference: `par-${i}` }), '--json'],
        env,
      })),
      onTestFinished,
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const references = new Set(journalEvents(dir).map((e) => e.reference));
    expect(references).toEqual(new Set(Array.from({ length: n }, (_, i) => `par-${i}`)));
    const history = (await mpay(['history', '--json'], { env })).json();
    expect(history).toHaveLength(n);
    for (const r of history)
      expect(r.steps.map((s: { step: string; outcome: string }) => `${s.step}:${s.outcome}`)).toEqual([
        'initiate:ok',
        'gateway:ok',
        'status:ok',
        'processed:ok',
      ]);
    expect(() => JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'))).not.toThrow();
  });

  it('logins in parallel each keep their profile', async ({ onTestFinished }) => {
    const dir = tempDir();
    const n = 8;
    const results = await allAtOnce(
      Array.from({ length: n }, (_, i) => ({
        argv: [
          'login',
          '--profile',
          `p${i}`,
          '--env',
          'sandbox',
          '--base-url',
          sb.url,
          '--site-id',
          '1',
          '--json',
        ],
        env: {
          MPAY_CONFIG_DIR: dir,
          MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
          MPAY_API_KEY: demoMerchant.apiKey,
        },
      })),
      onTestFinished,
    );
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const profiles = (await mpay(['profiles', 'list', '--json'], { env: { MPAY_CONFIG_DIR: dir } })).json();
    expect(profiles.map((p: { name: string }) => p.name).sort()).toEqual(
      Array.from({ length: n }, (_, i) => `p${i}`).sort(),
    );
    const tokens = JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'));
    expect(Object.keys(tokens)).toHaveLength(n);
  });
});

describe('the sandbox under load', () => {
  it('--data survives a kill -9 in the middle of writes', async ({ onTestFinished }) => {
    const dir = tempDir();
    const data = join(dir, 'state.json');
    const start = () => {
      const child = ownProcessOf(
        [process.execPath, bin, 'sandbox', '--port', '0', '--json', '--data', data],
        { stdio: ['ignore', 'pipe', 'ignore'] },
        onTestFinished,
      );
      const url = new Promise<string>((resolve) =>
        child.stdout!.once('data', (d) => resolve(JSON.parse(String(d)).url)),
      );
      return { child, url };
    };
    const first = start();
    const url = await first.url;
    const token = await apiToken(url);
    const sent: string[] = [];
    let answered = 0;
    const burst = Array.from({ length: 400 }, (_, i) => {
      const ref = `crash-${i}`;
      sent.push(ref);
      return apiInitiate(url, token, ref)
        .then((r) => void (r.status === 200 && answered++))
        .catch(() => undefined);
    });
    // Kill once some transactions are answered (so committed) and requests are still arriving.
    await waitUntil('the sandbox to answer some initiates', () => answered > 20);
    first.child.kill('SIGKILL');
    await Promise.all(burst);
    // It starts again from the file, and holds only transactions that were sent, each once.
    const second = start();
    const url2 = await second.url;
    try {
      const list: { reference: string }[] = await (await fetch(`${url2}/_sandbox/transactions`)).json();
      expect(list.length).toBeGreaterThan(0);
      for (const t of list) expect(sent).toContain(t.reference);
      expect(new Set(list.map((t) => t.reference)).size).toBe(list.length);
    } finally {
      second.child.kill('SIGINT');
    }
  }, 60_000);
});
