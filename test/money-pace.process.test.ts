// One run at a time, rate limits waited out, lost answers never re-sent, and a doctor that tells the truth
// (issue: money safety, round two). Real servers on loopback: the sandbox, and where a server must do what
// the sandbox never does (always 429, a 2xx to a credentials-only initiate), a small one of the test's own.
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  file,
  ndjson,
  requestCount,
  run,
  sandbox,
  setFaults,
  spawnMpay,
  tempDir,
  waitUntil,
  holdingProxy,
} from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';
const manyRows = (n: number, tag: string) =>
  [
    header,
    ...Array.from(
      { length: n },
      (_, i) => `GHS,GH,${10 + i},${tag},,+2332012${String(i).padStart(5, '0')},p${i}@example.org,1`,
    ),
  ].join('\n');

// The sections' tests have servers and folders of their own: the rate limits' short ones run at once, and
// the last four sections' do. The two processes racing for one lock run first, with nothing beside them to slow one down;
// the pacer's fake timers, which would stop every other test's, run alone, between the two groups.
describe('one run at a time', () => {
  let sb: Sb;
  beforeAll(async () => {
    // A little latency, so that two runs started together overlap for certain.
    sb = await sandbox({ latencyMs: 15 });
  });
  afterAll(() => sb.close());

  it('a resume while another process resumes the same transaction refuses with exit 11, sending nothing', async () => {
    const slow = await sandbox({
      faults: ['slow'],
      rate: 1,
      slowMs: 1500,
      faultPaths: ['/payments/status/update'],
    });
    try {
      const cfg = tempDir();
      const env = cliEnv(slow, cfg);
      await setFaults(slow, { rate: 0 });
      const init = await mpay(
        ['deposit', 'initiate', ...customerArgs({ reference: 'held-1', gateway: '' })],
        {
          env,
        },
      );
      expect(init.code, init.stderr).toBe(0);
      await setFaults(slow, { rate: 1 });
      const first = spawnMpay(['deposit', '--resume', 'held-1', '--gateway', '1', '--json'], env);
      await waitUntil(
        'the first resume to send its status update',
        async () => (await requestCount(slow, 'POST /payments/status/update')) > 0,
      );
      const second = await mpay(['deposit', '--resume', 'held-1', '--gateway', '1', '--json'], { env });
      expect(second.code, second.stderr).toBe(11);
      expect(second.json().error).toMatchObject({ kind: 'busy' });
      // The holder is named: the first process, by its id, and since when.
      expect(second.json().error.message).toBe(
        `Another mpay process (pid ${first.child.pid} on ${hostname()}, since ${second.json().error.message.match(/since ([\d-]+ [\d:]+) UTC/)?.[1]} UTC) is running the deposit held-1 right now; nothing was sent`,
      );
      const r1 = await first.done;
      expect(r1.code, r1.stderr).toBe(0);
      expect(await requestCount(slow, 'POST /payments/status/update')).toBe(1);
      expect(await requestCount(slow, 'POST /payments/processed')).toBe(1);
    } finally {
      await slow.close();
    }
  });
});

describe.concurrent('rate limits are waited out', () => {
  it('on a terminal each wait is shown as it starts; the OpenAPI page and --help document the limit', async () => {
    const sb = await sandbox({ rateLimit: { limit: 1, windowMs: 1000 } });
    try {
      // Token generate takes the second's budget: the merchant currencies wait for the next.
      const r = await mpay(['currencies', '--merchant'], {
        env: cliEnv(sb, tempDir()),
        tty: true,
        width: 80,
      });
      expect(r.code, r.stderr).toBe(0);
      // one line for a person, folded at a space to the terminal's 80 columns
      expect(r.stderr.replace(/\n {2}(?=\S)/g, ' ')).toMatch(
        /^mpay: rate limited \(HTTP 429\) on GET \/merchant\/currencies: waiting 1\.0 s, then try 2 of 6$/m,
      );
      const doc = (await (await fetch(`${sb.url}/restapi/documentation/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
      };
      for (const ops of Object.values(doc.paths))
        for (const op of Object.values(ops))
          expect(op.responses['429']?.headers).toHaveProperty('Retry-After');
      const help = await run(['sandbox', '--help']);
      expect(help.stdout).toMatch(/--latency=<value>/);
      expect(help.stdout).toMatch(/--rate-limit=<value>/);
      expect(help.stdout).toMatch(/--fault-seed=<value>/);
    } finally {
      await sb.close();
    }
  });
});

it('two batches of one 40-row file at once: each reference initiated once in all; the second refuses (exit 11) while the first sends', async ({
  onTestFinished,
}) => {
  // a sandbox of its own: it counts every initiate
  const sb = await sandbox();
  onTestFinished(() => sb.close());
  const cfg = tempDir();
  // The first batch's first initiate is held at a forwarder until the second has had its answer: the two
  // overlap for certain, whatever the machine's speed.
  const proxy = await holdingProxy(sb.url, '/payments/initiate');
  try {
    const env = cliEnv(proxy, cfg);
    const path = file('forty.csv', manyRows(40, 'Twice'));
    const one = spawnMpay(['deposit', 'batch', path, '--json'], env);
    await waitUntil('the first batch to send its first initiate', () => proxy.held() > 0);
    const refused = await mpay(['deposit', 'batch', path, '--json'], { env });
    proxy.release();
    const r1 = await one.done;
    expect([r1.code, refused.code], `${r1.stderr}\n${refused.stderr}`).toEqual([0, 11]);
    expect(refused.stderr).toMatch(
      /Another mpay process \(pid \d+ on \S+, since [\d-]+ [\d:]+ UTC\) is running a batch of the rows of .*forty\.csv right now; nothing was sent/,
    );
    // Its stdout is the error alone: no row of the other's.
    expect(JSON.parse(refused.stdout).error.kind).toBe('busy');
    // At the server: 40 transactions, one initiate each, none refused as a duplicate.
    const made = sb.state.list().filter((t) => t.customer.first_name === 'Twice');
    expect(made).toHaveLength(40);
    expect(new Set(made.map((t) => t.reference)).size).toBe(40);
    expect(await requestCount(sb, 'POST /payments/initiate')).toBe(40);
    // The lock is gone with its holder: the same file again runs, and finds every row done.
    const again = await mpay(['deposit', 'batch', path, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(new Set(ndjson(again.stdout).map((r) => r.outcome))).toEqual(new Set(['skipped']));
  } finally {
    await proxy.close();
  }
});
