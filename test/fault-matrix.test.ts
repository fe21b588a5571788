// Every command that talks to the API against every fault the sandbox injects: the exit code and error
// kind of the README's table, no stack trace, how many times each request was sent (GETs and token generate are
// retried; a money-moving POST never is), and what the journal holds afterwards. The commands run
// in-process (test/in-process.ts: the real command classes, a real sandbox over HTTP); the bundle and the
// process's own exit are covered by the process tests.
// Each command's faults go to a sandbox of its own (the faults are a sandbox's state, and so are the
// counts of what was sent): the commands run at once, each through its faults one after the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiInitiate,
  apiToken,
  setFaults,
  cliEnv,
  customerArgs,
  noStack,
  sandbox,
  tempDir,
} from './helpers.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { mpay as run } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
type Fault = '500' | 'html' | 'malformed' | 'empty' | 'shape' | 'slow' | 'drop' | 'drop-after' | '401';

const faults: Array<[Fault, number, string]> = [
  ['500', 7, 'server'],
  ['html', 7, 'server'],
  ['malformed', 7, 'server'],
  ['empty', 7, 'server'],
  ['shape', 7, 'server'],
  ['slow', 8, 'network'],
  ['drop', 8, 'network'],
  ['drop-after', 8, 'network'],
  ['401', 3, 'auth'],
];
// Answers a client retries (GETs and token generate): 5xx and failed connections; not a 200 with a bad body.
const retried = new Set<Fault>(['500', 'html', 'slow', 'drop', 'drop-after']);

let sb: Sb;
let seq = 0;
beforeAll(async () => {
  sb = await sandbox({ slowMs: 1500 });
});
afterAll(() => sb.close());

const counts = (sb: Sb) => ({ ...sb.state.requestCounts() });

/** A transaction in status initiated, made through the API with no fault, for the one-step commands. */
async function initiated(sb: Sb, kind: 'deposit' | 'withdraw'): Promise<string> {
  const res = await apiInitiate(sb.url, await apiToken(sb.url), `fm-${process.pid}-${++seq}`, kind);
  return (await res.json()).data.has_token;
}

const flow = customerArgs();

interface Case {
  name: string;
  /** the route the fault is put on, as counted by the sandbox */
  route: string;
  money: boolean;
  args: (sb: Sb) => Promise<string[]>;
}
const cases: Case[] = [
  { name: 'countries', route: 'GET /public/countries', money: false, args: async () => ['countries'] },
  { name: 'currencies', route: 'GET /public/currencies', money: false, args: async () => ['currencies'] },
  {
    name: 'currencies --merchant',
    route: 'GET /merchant/currencies',
    money: false,
    args: async () => ['currencies', '--merchant'],
  },
  { name: 'token', route: 'POST /auth/merchant/token/generate', money: false, args: async () => ['token'] },
  {
    name: 'deposit initiate',
    route: 'POST /payments/initiate',
    money: true,
    args: async () => ['deposit', 'initiate', ...flow.slice(0, -2), '--reference', `fm-cli-${++seq}`],
  },
  {
    name: 'withdraw (flow, at initiate)',
    route: 'POST /payments/withdraw/initiate',
    money: true,
    args: async () => ['withdraw', ...flow, '--reference', `fm-cli-${++seq}`],
  },
  {
    name: 'status',
    route: 'POST /payments/status/update',
    money: true,
    args: async (sb) => ['status', await initiated(sb, 'deposit'), '--status', 'initiated', '--gateway', '1'],
  },
  {
    name: 'wallet',
    route: 'POST /payments/crypto/wallet/address/update',
    money: true,
    args: async (sb) => ['wallet', await initiated(sb, 'deposit'), '--gateway', '2'],
  },
  {
    name: 'deposit process',
    route: 'POST /payments/processed',
    money: true,
    args: async (sb) => [
      'deposit',
      'process',
      await initiated(sb, 'deposit'),
      '--phone-number',
      '+233201234567',
    ],
  },
  {
    name: 'withdraw process',
    route: 'POST /payments/withdraw/processed',
    money: true,
    args: async (sb) => [
      'withdraw',
      'process',
      await initiated(sb, 'withdraw'),
      '--phone-number',
      '+233201234567',
      '--email',
      'ama@example.com',
    ],
  },
];

describe.concurrent.each(cases)('$name', (c) => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox({ slowMs: 1500 });
  });
  afterAll(() => sb.close());
  // one fault after the other on this command's sandbox
  it.sequential.each(faults)('%s → exit %i (%s)', async (fault, code, kind) => {
    const dir = tempDir();
    const env = cliEnv(sb, dir, { MPAY_RETRY_BASE_MS: '10' });
    await setFaults(sb, { rate: 0 });
    // A cached token, so that a 401 earns the one refresh-and-repeat of docs/spec-readings.md.
    expect((await run(['token'], { env })).code).toBe(0);
    const args = await c.args(sb);
    const before = counts(sb);
    await setFaults(sb, { faults: [fault], rate: 1, faultPaths: [c.route.split(' ')[1]!] });
    const r = await run([...args, '--json', '--timeout', '0.5'], { env });
    await setFaults(sb, { rate: 0 });
    expect(r.code, r.stderr).toBe(code);
    expect(r.json().error.kind).toBe(kind);
    expect(noStack(r.stderr)).toBe(true);
    // One line of error on stderr; a flow's steps may come before it.
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^mpay: /);
    expect(lines.slice(0, -1).filter((l) => !/^(→| {2})/.test(l))).toEqual([]);

    const sent = (counts(sb)[c.route] ?? 0) - (before[c.route] ?? 0);
    const bearer = !c.route.startsWith('GET /public') && !c.route.includes('token/generate');
    if (fault === '401')
      expect(sent, bearer ? 'one new token, one repeat' : 'no bearer, no repeat').toBe(bearer ? 2 : 1);
    else if (c.money) expect(sent, 'a money-moving POST is sent once').toBe(1);
    else expect(sent).toBe(retried.has(fault) ? 3 : 1);

    if (c.money && fault !== '401') {
      const hist = await run(['history', '--json'], { env });
      const mine = hist.json();
      if (c.name.includes('initiate') || c.name.includes('flow')) {
        // A transaction mpay started: the journal says what it knows of the failed step.
        const last = mine.at(-1).steps.at(-1);
        expect(last.step).toBe('initiate');
        expect(last.outcome).toBe(
          fault === 'drop' || fault === 'drop-after' || fault === 'slow' ? 'ambiguous' : 'failed',
        );
      }
      if (fault === 'drop-after' || fault === 'drop' || fault === 'slow') {
        // Ambiguous: the message says so, names what identifies the transaction and how to check.
        const hint = r.json().error.hint ?? '';
        if (c.name.includes('initiate') || c.name.includes('flow'))
          expect(hint).toMatch(/may exist \(reference fm-cli-\d+\)/);
        expect(hint).toMatch(/Nothing was re-sent/);
      }
    }
  });
});

describe('connection refused', () => {
  it.each(cases.filter((c) => !c.name.includes('process') && !['status', 'wallet'].includes(c.name)))(
    '$name → exit 8',
    async (c) => {
      const r = await run([...(await c.args(sb)), '--json'], {
        env: cliEnv({ url: 'http://127.0.0.1:9' }, tempDir(), { MPAY_RETRY_BASE_MS: '10' }),
      });
      expect(r.code).toBe(8);
      expect(r.json().error).toMatchObject({ kind: 'network', status: null });
      expect(r.json().error.message).toMatch(/connection refused/);
      expect(noStack(r.stderr)).toBe(true);
    },
  );
});

describe('doctor and login under faults', () => {
  it('doctor reports the failing check and exits with its kind', async () => {
    const env = cliEnv(sb, tempDir(), { MPAY_RETRY_BASE_MS: '10' });
    for (const [fault, path, code, check] of [
      ['500', '/public/countries', 7, 'API reachable'],
      ['drop', '/public/countries', 8, 'API reachable'],
      ['html', '/merchant/currencies', 7, 'bearer token'],
      ['401', '/merchant/currencies', 3, 'bearer token'],
    ] as const) {
      await setFaults(sb, { faults: [fault], rate: 1, faultPaths: [path] });
      const r = await run(['doctor', '--json', '--timeout', '0.5'], { env });
      await setFaults(sb, { rate: 0 });
      expect(r.code, `${fault} on ${path}`).toBe(code);
      const failed = r.json().checks.filter((c: { ok: boolean }) => !c.ok);
      expect(failed.map((c: { name: string }) => c.name)).toEqual([check]);
      expect(noStack(r.stderr)).toBe(true);
    }
  });

  it('login saves nothing when the token request fails', async () => {
    const dir = tempDir();
    for (const [fault, code] of [
      ['500', 7],
      ['drop', 8],
      ['malformed', 7],
    ] as const) {
      await setFaults(sb, { faults: [fault], rate: 1, faultPaths: ['/token/generate'] });
      const r = await run(['login', '--env', 'sandbox', '--base-url', sb.url, '--site-id', '1', '--json'], {
        env: {
          MPAY_CONFIG_DIR: dir,
          MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
          MPAY_API_KEY: demoMerchant.apiKey,
          MPAY_RETRY_BASE_MS: '10',
        },
      });
      await setFaults(sb, { rate: 0 });
      expect(r.code, fault).toBe(code);
      expect((await run(['profiles', 'list', '--json'], { env: { MPAY_CONFIG_DIR: dir } })).json()).toEqual(
        [],
      );
    }
  });
});
