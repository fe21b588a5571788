// mpay sandbox --catalogue: a merchant's own currencies served from a trace (the sandbox started as a process,
// as a support engineer starts it), secrets replaced, and a replay of the demo merchant's trace there.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, firstJsonLine, sandbox, spawnMpay, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let b: Sb; // where a trace is replayed
let alt: Sb; // other data: the alt seed

beforeAll(async () => {
  [b, alt] = await Promise.all([sandbox(), sandbox({ seed: 'alt' })]);
});
afterAll(async () => {
  await Promise.all([b.close(), alt.close()]);
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
