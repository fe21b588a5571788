// mpay replay FILE: a trace recorded on one sandbox, sent again to another (and to one with other data), with
// a fresh token, fresh references and mapped hash tokens; a withdrawal's code from --otp; a support bundle;
// the live gate; a browser's HAR with other hosts and secrets in it; and mpay sandbox --catalogue, which
// serves a merchant's own currencies from a trace. What the person sees afterwards is checked too: the
// journal, and each sandbox's count of requests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, firstJsonLine, sandbox, spawnMpay, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let a: Sb; // where the traces are recorded
let b: Sb; // where they are replayed: same data, another server
let alt: Sb; // other data: the alt seed
let depositTrace: string;
let withdrawTrace: string;

const deposit = [
  'deposit',
  '--currency',
  'USD',
  '--country',
  'US',
  '--amount',
  '20',
  '--first-name',
  'Ama',
  '--phone',
  '+15551234567',
  '--email',
  'ama@example.com',
  '--gateway',
  '5', // USDT on TRC20: the flow has its wallet address update
];

beforeAll(async () => {
  [a, b, alt] = await Promise.all([sandbox(), sandbox(), sandbox({ seed: 'alt' })]);
  const dir = tempDir();
  depositTrace = join(dir, 'deposit.har');
  withdrawTrace = join(dir, 'withdraw.har');
  const env = cliEnv(a, tempDir());
  const d = await mpay([...deposit, '--trace', depositTrace, '--json'], { env });
  expect(d.code, d.stderr).toBe(0);
  const w = await mpay(
    [
      'withdraw',
      '--currency',
      'GHS',
      '--amount',
      '20',
      '--first-name',
      'Kofi',
      '--phone',
      '+233209876540',
      '--email',
      'kofi@example.com',
      '--gateway',
      '1',
      '--otp',
      demoMerchant.otp,
      '--trace',
      withdrawTrace,
      '--json',
    ],
    { env },
  );
  expect(w.code, w.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), alt.close()]);
});

describe('mpay sandbox --catalogue', () => {
  it("serves a merchant's own currencies from a trace, secrets replaced; a replay there meets them", async () => {
    // The merchant: the alt data set (its own ids, spellings, extra fields), traced as support would.
    const dir = tempDir();
    const balancesTrace = join(dir, 'balances.har');
    const env = cliEnv(alt, tempDir());
    const traced = await mpay(['balances', '--json', '--trace', balancesTrace], { env });
    expect(traced.code, traced.stderr).toBe(0);
    const har = JSON.parse(readFileSync(balancesTrace, 'utf8'));
    // a secret as the merchant's server might send it, in the clear (a foreign trace)
    const answer = JSON.parse(har.log.entries.at(-1).response.content.text);
    answer.data[0].getway_configuration[0].api_key = 'gw_live_key_5566778899';
    har.log.entries.at(-1).response.content.text = JSON.stringify(answer);
    writeFileSync(balancesTrace, JSON.stringify(har));
    const child = spawnMpay(['sandbox', '--port', '0', '--json', '--catalogue', balancesTrace], {});
    const url: string = (await firstJsonLine(child.child)).url;
    try {
      const direct = (await (await fetch(`${alt.url}/restapi/v1/public/currencies`)).json()).data;
      const served = (await (await fetch(`${url}/restapi/v1/public/currencies`)).json()).data;
      expect(served.map((c: { code: string }) => c.code)).toEqual(
        direct.map((c: { code: string }) => c.code),
      );
      // the merchant's own spelling: numbers as strings
      for (const k of ['id', 'name', 'code', 'usd_exchange_rate', 'minimum_deposite', 'maximum_deposite'])
        expect(served[0][k], k).toEqual(direct[0][k]);
      expect(typeof served[0].usd_exchange_rate).toBe('string');
      const mine = await mpay(['balances', '--json'], { env: cliEnv({ url }, tempDir()) });
      expect(mine.code, mine.stderr).toBe(0);
      const theirs = traced.json();
      expect(mine.json().map((c: { code: string }) => c.code)).toEqual(
        theirs.map((c: { code: string }) => c.code),
      );
      const raw = await mpay(['api', 'GET', '/merchant/currencies'], { env: cliEnv({ url }, tempDir()) });
      expect(raw.stdout).not.toContain('gw_live_key_5566778899');
      expect(raw.stdout).toContain('"api_key":"********"');
      // A deposit traced against the merchant's server, replayed against its catalogue: the same answers.
      const gateway = String(
        theirs[0].getway_configuration.find((g: { type: string }) => g.type === 'collection').gateway.id,
      );
      const depTrace = join(dir, 'merchant-deposit.har');
      const d = await mpay(
        [
          'deposit',
          '--currency',
          theirs[0].code,
          '--amount',
          String(Math.max(Number(theirs[0].minimum_deposite ?? 1), 10)),
          '--first-name',
          'Ama',
          '--phone',
          '+233201234567',
          '--email',
          'ama@example.com',
          '--gateway',
          gateway,
          '--no-wallet',
          '--trace',
          depTrace,
          '--json',
        ],
        { env },
      );
      expect(d.code, d.stderr).toBe(0);
      const r = await mpay(['replay', depTrace, '--json'], { env: cliEnv({ url }, tempDir()) });
      expect(r.code, JSON.stringify(r.json().filter((c: { same: boolean }) => !c.same))).toBe(0);
      // and against the demo data, the same trace differs
      const demo = await mpay(['replay', depTrace, '--json'], { env: cliEnv(b, tempDir()) });
      expect(demo.code).toBe(13);
    } finally {
      child.child.kill('SIGTERM');
      await child.done;
    }
  });
});
