// #33 item 7: a batch's rate-limit wait is visible. On a terminal the bar counts each wait down, and the
// pace the batch reports at its end is the one it kept (measured: rows over the time since the first 429),
// in a unit that reads. A real terminal (tmux), the real bin/run.js, a sandbox with a small rate limit.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, sandbox, tempDir } from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox({ rateLimit: { limit: 3, windowMs: 8000 } });
});
afterAll(() => sb.close());

it.skipIf(without('tmux'))(
  'the bar counts the wait down, and the end reports the pace kept',
  async () => {
    const t = new Tmux('batch-wait');
    try {
      const path = file(
        'waits.csv',
        'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,15,Esi,+233201234599,esi@example.org,1\n',
      );
      // 80 columns, as the user's terminal: the wait takes the stale rate's and time's place on the line
      t.start(['deposit', 'batch', path, '--yes'], cliEnv(sb, tempDir()), undefined, 80);
      const first = await t.waitFor(/rate limited: waiting \d+ s/, 60_000);
      const n = Number(/waiting (\d+) s/.exec(first)![1]);
      const line = first.split('\n').find((l) => /waiting \d+ s/.test(l))!;
      expect(line, first).toMatch(/^ \S+ 0\/1 rows \| 0 failed \| rate limited: waiting \d+ s$/);
      expect(line.length).toBeLessThanOrEqual(80);
      // the same wait, later: a smaller number on the bar
      await t.waitFor(
        new RegExp(`waiting (${Array.from({ length: n - 1 }, (_, i) => i + 1).join('|') || '0'}) s`),
        30_000,
      );
      const screen = await t.waitFor(/EXIT=\d+/, 90_000);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen.replace(/\n\s+/g, ' ')).toMatch(
        /requests now go out at most (\d+ a second|one every [\d.]+ s), fewer while the server asks to wait \(now \d+ s; the bar counts each wait down\)/,
      );
      const kept =
        /the pace kept, from the first 429 on: 1 row in (\d+) s, ([\d.]+) rows? a (second|minute)/.exec(
          screen.replace(/\n\s+/g, ' '),
        );
      expect(kept, screen).not.toBeNull();
      // the pace said is the row over the time said: the time is said in whole seconds, rounded up (a
      // wait of 8.4 s is "9 s"), the pace to a tenth, so the pace lies between one row over the time said
      // and one row over a second less
      const perUnit = kept![3] === 'second' ? 1 : 60;
      const secs = Number(kept![1]);
      const pace = Number(kept![2]);
      expect(pace).toBeGreaterThanOrEqual(Math.floor((perUnit / secs) * 10) / 10);
      expect(pace).toBeLessThanOrEqual(Math.ceil((perUnit / Math.max(0.1, secs - 1)) * 10) / 10);
    } finally {
      t.kill();
    }
  },
  150_000,
);
