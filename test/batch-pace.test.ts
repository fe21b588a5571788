// The pace a batch reports is the pace it keeps, as the server sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, file, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { Pacer, rateInWords } from '../src/api/rate-limit.js';
import { parseRateLimit, RateLimiter } from '../src/sandbox/pacing.js';

let a: Awaited<ReturnType<typeof sandbox>>;
// Sections 2 to 8 share nothing that one counts (each has its own folders, and the servers it counts are its
// own), so they run at once, in two groups: the batch's paced waits (2) beside the sections whose work is in
// processes of their own (7, 8), so that its pace is kept by a worker with little else to do; then the
// in-process ones (3 to 6). Section 1 (every request to sandbox a counted) runs between the groups, the
// doctor's count of a's key checks after them.
beforeAll(async () => {
  a = await sandbox();
});
afterAll(async () => {
  await a?.close();
});

describe.concurrent('2. the pace a batch reports is the pace it keeps', () => {
  // At the original figure, on one clock shared by the server's limiter and the client's pacer (no waiting):
  // `--rate-limit 10/min` is ten in a window of a minute; ten answers, then a 429 whose Retry-After ends the
  // window; the pace set is one every 6 s, and each turn after the wait reaches a server that lets it through.
  it('`--rate-limit 10/min`: the pacer says one every 6 s, and the server then sees one every 6 s (one clock, no wait)', () => {
    const figure = parseRateLimit('10/min');
    expect(figure).toEqual({ limit: 10, windowMs: 60_000 });
    let now = 1_000_000;
    const server = new RateLimiter(figure!.limit, figure!.windowMs, () => now);
    const pacer = new Pacer(() => now);
    // the batch's first burst: ten requests 10 ms apart, each let through and answered
    for (let i = 0; i < 10; i++) {
      expect(pacer.turn()).toBe(0);
      expect(server.take()).toBeUndefined();
      pacer.answered();
      now += 10;
    }
    // the eleventh is refused until the window's end, in whole seconds: 60 s less the 100 ms gone, rounded up
    const retryAfter = server.take();
    expect(retryAfter).toBe(60);
    pacer.throttled(retryAfter! * 1000);
    // ten in the span from the first answer to the wait's end (60.1 s): one every 6.01 s, said as 6 s
    expect(1000 / pacer.rate!).toBeCloseTo(6010, 6);
    const said = rateInWords(pacer.rate!);
    expect(said).toBe('one every 6 s');
    const every = Number(/one every ([\d.]+) s/.exec(said)![1]);
    // after the wait, the rest of the batch's requests (the refused one again, then three: 14 in all for four
    // rows) take their turns at once: the first goes when the wait ends, the pace grown by its 1% (three
    // seconds and more since its last change), and each after it a turn later; the server, on the same
    // clock, lets every one through, one every 6 s (6.01 s over 1.01)
    now += retryAfter! * 1000;
    const arrivals = Array.from({ length: 4 }, () => now + pacer.turn());
    expect(arrivals[0]).toBe(now);
    for (const at of arrivals) {
      now = at;
      expect(server.take(), `a turn at +${at - arrivals[0]!} ms`).toBeUndefined();
      pacer.answered();
    }
    expect(server.refused).toBe(1);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
    for (const gap of gaps) {
      expect(gap).toBeCloseTo(6010 / 1.01, 6);
      expect(gap / 1000).toBeGreaterThan(every * 0.8);
      expect(gap / 1000).toBeLessThan(every * 1.25);
    }
  });

  it('against a limit of 10 in a short window the batch says one every window/10, and the server then sees that pace', async () => {
    // The same run end to end over HTTP, at a window of 15 s instead of a minute (the wait the batch must sit
    // out is the window's): one every 1.5 s. The bounds are the minute's, scaled with the pace: at least the
    // pace the window allows, under 6.5/6 of it (the server's wait is whole seconds, so a little over).
    const windowMs = 15_000;
    const nominal = windowMs / 10 / 1000;
    // every API request as it came, and whether the limit let it through
    const arrivals: { route: string; at: number }[] = [];
    const sb = await sandbox({
      rateLimit: { limit: 10, windowMs },
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
      expect(every).toBeGreaterThanOrEqual(nominal);
      expect(every).toBeLessThan((nominal * 6.5) / 6);
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
  }, 60_000);
});
