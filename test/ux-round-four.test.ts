// #33, a second new user on the built round three: each finding as it was met, against a real sandbox over
// HTTP, through the command classes in this process (test/in-process.ts) or the real bin/run.js where the
// printed command itself is run (bash -c, as a person pastes it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, file, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let a: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  a = await sandbox();
});
afterAll(async () => {
  await a?.close();
});

describe('1. a --trace path that cannot be written', () => {
  it('`--trace /sys/x.har` (a folder no file can be made in, root or not) is refused before anything is sent', async () => {
    const env = cliEnv(a, tempDir());
    const before = await requestCounts(a);
    const r = await mpay(['deposit', ...customerArgs(), '--yes', '--trace', '/sys/x.har', '--json'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.json().error.kind).toBe('usage');
    expect(r.json().error.message).toBe(
      'Cannot write the trace to /sys/x.har: the folder /sys is not writable by this user',
    );
    expect(await requestCounts(a)).toEqual(before);
  });
});

describe('2. the pace a batch reports is the pace it keeps', () => {
  it('against `--rate-limit 10/min` the batch says one every 6 s, and the server then sees one every 6 s', async () => {
    // every API request as it came, and whether the limit let it through
    const arrivals: { route: string; at: number }[] = [];
    const sb = await sandbox({
      rateLimit: { limit: 10, windowMs: 60_000 },
      onArrival: (route, at) => arrivals.push({ route, at }),
    });
    try {
      const header = 'currency,country,amount,first_name,phone,email,gateway\n';
      const rows = Array.from(
        { length: 4 },
        (_, i) => `GHS,GH,${10 + i},Ama,+23320123${String(4500 + i)},a${i}@b.c,1`,
      );
      const path = file('paced.csv', header + rows.join('\n') + '\n');
      const r = await mpay(['deposit', 'batch', path, '--yes', '--concurrency', '4'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stderr).toBe(0);
      const said = /requests now go out at most one every ([\d.]+) s/.exec(r.stderr.replace(/\n\s*/g, ' '));
      expect(said, r.stderr).not.toBeNull();
      const every = Number(said![1]);
      // 10 a minute, as the server allows: one every 6 s (the server's wait is whole seconds, so a little over)
      expect(every).toBeGreaterThanOrEqual(6);
      expect(every).toBeLessThan(6.5);
      // The requests the limit let through after the first refusal's wait: their gaps are the pace kept.
      const refused = new Set(arrivals.flatMap((a, i) => (a.route.startsWith('429 ') ? [i - 1, i] : [])));
      const firstRefusal = arrivals.findIndex((a) => a.route.startsWith('429 '));
      expect(firstRefusal).toBeGreaterThan(0);
      const through = arrivals.filter((a, i) => i > firstRefusal && !refused.has(i)).map((a) => a.at);
      expect(through.length, JSON.stringify(arrivals)).toBeGreaterThanOrEqual(3);
      const gaps = through.slice(2).map((at, i) => (at - through[i + 1]!) / 1000);
      // the first one after the wait goes when the wait ends; each after it waits its turn at the pace said
      for (const gap of gaps) {
        expect(gap).toBeGreaterThan(every * 0.8);
        expect(gap).toBeLessThan(every * 1.25);
      }
      expect(r.stderr.replace(/\n\s*/g, ' ')).toMatch(/requests were paced down to one every [\d.]+ s/);
    } finally {
      await sb.close();
    }
  }, 150_000);
});
