// #33 item 3: a second Ctrl-C in a batch stops at once, yet ends the bar's line, prints the counts and the
// complete command to continue, and exits 130; the rows in flight are unknown on the next run, and the bar
// counts them as the summary does. A real terminal (tmux), the real bin/run.js, a real sandbox behind a
// proxy that holds the initiates, so that the test knows which rows are in flight.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, commandOnScreen, file, holdingProxy, sandbox, tempDir, waitUntil } from './helpers.js';
import { mpay } from './in-process.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';

it.skipIf(without('tmux'))(
  'a second Ctrl-C: the line ends, the counts and the command to resume are printed, exit 130',
  async () => {
    const slow = await holdingProxy(sb.url, '/payments/initiate');
    const t = new Tmux('second-ctrl-c');
    try {
      const rows = Array.from(
        { length: 5 },
        (_, i) => `GHS,GH,${30 + i},Efua,,+2332012341${String(i).padStart(2, '0')},efua${i}@example.org,1`,
      );
      const path = file('twice.csv', [header, ...rows].join('\n'));
      const env = cliEnv(undefined, tempDir());
      t.start(
        ['deposit', 'batch', path, '--concurrency', '2', '--yes', '--base-url', slow.url],
        env,
        undefined,
        80,
      );
      await waitUntil('the initiates of two rows in flight', () => slow.held() === 2, 45_000);
      t.keys('C-c');
      await t.waitFor(/stopping: no new rows start/);
      t.keys('C-c');
      const screen = await t.waitFor(/EXIT=\d+/, 30_000);
      expect(screen).toMatch(/EXIT=130/);
      // the shell's next line starts on a line of its own: the bar's line was ended
      expect(screen).toMatch(/^EXIT=130$/m);
      // prose folded at 80 columns reads as one line again
      const prose = screen.replace(/\n {2}(?=\S)/g, ' ');
      expect(prose).toMatch(
        /^mpay: interrupted again, stopped at once: 0 done, 0 already done, 0 failed, 0 unknown; 2 in flight, 3 not started/m,
      );
      expect(prose).toMatch(/The 2 rows in flight had no answer: the next run reports them as unknown/);
      const resume = commandOnScreen(screen, 'Resume with: ').replace(/ \\\n\s+/g, ' ');
      expect(resume).toBe(
        `mpay deposit batch ${path} --concurrency 2 --profile default --env sandbox --base-url ${slow.url}`,
      );
      // The next run (the proxy released): the two rows in flight are unknown and not sent; the bar and
      // the summary count them alike.
      slow.release();
      const again = await mpay(['deposit', 'batch', path, '--yes', '--base-url', slow.url], { env });
      expect(again.code).toBe(10);
      expect(again.stderr).toMatch(/^3 done, 0 already done, 0 failed, 2 unknown$/m);
    } finally {
      t.kill();
      await slow.close();
    }
  },
  90_000,
);

it.skipIf(without('tmux'))(
  'the bar counts failed and unknown apart, as the summary does',
  async () => {
    const t = new Tmux('bar-counts');
    try {
      const cfg = tempDir();
      const env = cliEnv(sb, cfg);
      // two rows unknown (their initiates dropped): the old bar said "2 failed"
      const rows = [
        'GHS,GH,41,Akua,,+233201234201,akua@example.org,1',
        'GHS,GH,42,Akos,,+233201234202,akos@example.org,1',
      ];
      const path = file('bar.csv', [header, ...rows].join('\n'));
      const first = await fetch(`${sb.url}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ faults: ['drop'], rate: 1, faultPaths: ['/payments/initiate'] }),
      });
      expect(first.ok).toBe(true);
      try {
        const r = await mpay(['deposit', 'batch', path, '--yes', '--json'], { env });
        expect(r.code).toBe(10);
      } finally {
        await fetch(`${sb.url}/_sandbox/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ faults: [], rate: 0 }),
        });
      }
      t.start(['deposit', 'batch', path, '--yes'], env, undefined, 100);
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/0 done, 0 already done, 0 failed, 2 unknown/);
      expect(screen).toMatch(/\| 0 failed, 2 unknown \|/);
      expect(screen).not.toMatch(/\| 2 failed \|/);
    } finally {
      t.kill();
    }
  },
  90_000,
);
