// #33 item 3: a second Ctrl-C in a batch stops at once, yet ends the bar's line, prints the counts and the
// complete command to continue, and exits 130; the rows in flight are unknown on the next run, and the bar
// counts them as the summary does. A real terminal (tmux), the real bin/run.js, a real sandbox behind a
// proxy that holds the initiates, so that the test knows which rows are in flight.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  bin,
  cliEnv,
  commandOnScreen,
  file,
  holdingProxy,
  ndjson,
  sandbox,
  tempDir,
  waitUntil,
  allJournalEvents,
} from './helpers.js';
import { mpay } from './in-process.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.js';
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
  { concurrent: true, timeout: 90_000 },
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
);

it.skipIf(without('tmux'))(
  'the bar counts failed and unknown apart, as the summary does',
  { concurrent: true, timeout: 90_000 },
  async () => {
    const t = new Tmux('bar-counts');
    // a sandbox of its own: its faults would drop the initiates of the tests that run beside it
    const sb = await sandbox();
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
      await sb.close();
    }
  },
);

// #33 (trial): a row waiting its turn after a 429 (the batch's pace) was journaled `sent` before it went out,
// so a stop during the wait made it `unknown` though it never reached the server. A real sandbox with a
// rate limit, the real bin/run.js, two SIGINTs (Ctrl-C twice) while rows wait.
it.concurrent(
  'a stop while rows wait out the rate limit: those rows are not sent, not unknown, and the next run sends them',
  async () => {
    // its state in a data file, so that the next run (which is about the rows held, not the limit) finds the
    // same server at the same address, without the limit
    const data = join(tempDir(), 'sandbox.jsonl');
    const limited = await sandbox({ rateLimit: { limit: 3, windowMs: 2000 }, dataFile: data });
    let closing: Promise<void> | undefined;
    const limitedClosed = () => (closing ??= limited.close());
    let lifted: RunningSandbox | undefined;
    const cfg = tempDir();
    const env = cliEnv(limited, cfg);
    try {
      const rows = Array.from(
        { length: 16 },
        (_, i) => `GHS,GH,${50 + i},Yaa,,+2332012343${String(i).padStart(2, '0')},yaa${i}@example.org,1`,
      );
      const path = file('paced.csv', [header, ...rows].join('\n'));
      const child = spawn(process.execPath, [bin, 'deposit', 'batch', path, '--concurrency', '8', '--yes'], {
        env: { ...process.env, ...env, CI: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const closed = new Promise((r) => child.on('close', (c, signal) => r(c ?? signal)));
      // rate limited, and rows started since then waiting their turn at the pace the server allows
      await waitUntil(
        'rows waiting their turn after a 429',
        () => firstTriesWaiting(cfg).length >= 2,
        60_000,
      );
      child.kill('SIGINT');
      await waitUntil('the first Ctrl-C said', () => /stopping: no new rows start/.test(stderr), 30_000);
      child.kill('SIGINT');
      expect(await closed, stderr).toBe(130);
      expect(stderr).toMatch(/interrupted again, stopped at once/);
      // Every initiate the journal leaves without an answer is one the server received: a row that was still
      // waiting its turn says it was not sent.
      const received = new Set(
        (
          (await (await fetch(`${limited.url}/_sandbox/transactions`)).json()) as {
            reference?: string;
          }[]
        ).map((t) => t.reference),
      );
      const last = lastLines(cfg);
      const unanswered = [...last].filter(([, l]) => l.outcome === 'sent').map(([ref]) => ref);
      expect(unanswered.filter((ref) => !received.has(ref))).toEqual([]);
      const held = [...last].filter(
        ([, l]) => l.outcome === 'throttled' && /not sent yet/.test(String(l.data?.error)),
      );
      expect(
        held.length,
        JSON.stringify([...last].map(([r, l]) => [r, l.outcome, l.data?.error])),
      ).toBeGreaterThan(0);
      // The next run sends them: none is unknown, every row ends done. The same server (its transactions kept)
      // at the same address, its rate limit lifted: the rows left go without waiting out a window each.
      await limitedClosed();
      lifted = await startSandbox({
        dataFile: data,
        host: '127.0.0.1',
        port: Number(new URL(limited.url).port),
      });
      const kept = (await (await fetch(`${lifted.url}/_sandbox/transactions`)).json()) as {
        reference?: string;
      }[];
      expect(new Set(kept.map((t) => t.reference))).toEqual(received);
      const again = await mpay(['deposit', 'batch', path, '--yes', '--json'], { env });
      expect(again.stderr).toMatch(/ 0 unknown$/m);
      expect(again.code, again.stderr).toBe(0);
      const results = ndjson<{ reference: string; outcome: string }>(again.stdout);
      for (const [ref] of held) expect(results.find((r) => r.reference === ref)?.outcome).toBe('done');
    } finally {
      await limitedClosed();
      await lifted?.close();
    }
  },
  120_000,
);

type Line = { at: string; reference: string; step: string; outcome: string; data?: { error?: unknown } };

/** Each reference's journal lines of its initiate, in order. */
function initiates(cfg: string): Map<string, Line[]> {
  const all = new Map<string, Line[]>();
  for (const line of allJournalEvents(cfg) as Line[])
    if (line.step === 'initiate') all.set(line.reference, [...(all.get(line.reference) ?? []), line]);
  return all;
}

/** Each reference's last journal line of its initiate. */
function lastLines(cfg: string): Map<string, Line> {
  return new Map([...initiates(cfg)].map(([ref, lines]) => [ref, lines.at(-1)!]));
}

/**
 * References whose initiate's first try started well after the first 429 (so the batch's pace holds it)
 * and has no answer yet: journaled `sent` by the gate, and nothing after it but, with the fix, the line
 * that says it waits its turn.
 */
function firstTriesWaiting(cfg: string): string[] {
  const lines = [...initiates(cfg)];
  const firstThrottle = lines
    .flatMap(([, ls]) => ls)
    .filter((l) => l.outcome === 'throttled')
    .map((l) => Date.parse(l.at))
    .sort((a, b) => a - b)[0];
  if (firstThrottle === undefined) return [];
  return lines
    .filter(
      ([, ls]) =>
        Date.parse(ls[0]!.at) > firstThrottle + 500 &&
        ls[0]!.outcome === 'sent' &&
        (ls.length === 1 || (ls.length === 2 && /not sent yet/.test(String(ls[1]!.data?.error)))),
    )
    .map(([ref]) => ref);
}

// #33 (trial): Ctrl-C early in a batch read from stdin (its rows still coming) printed nothing. It ends
// as a Ctrl-C in a file batch does: the counts, and the command to run it again with the rows on stdin.
it.concurrent(
  'Ctrl-C while a batch still reads its rows from stdin: the counts and the command to resume, exit 130',
  async () => {
    const cfg = tempDir();
    const child = spawn(process.execPath, [bin, 'deposit', 'batch', '-', '--concurrency', '3', '--yes'], {
      env: { ...process.env, ...cliEnv(sb, cfg), CI: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const closed = new Promise((r) => child.on('close', (c, signal) => r(c ?? signal)));
    // the rows come slowly: the header and one row, and stdin left open
    child.stdin.write(`${header}\nGHS,GH,61,Abena,,+233201234461,abena@example.org,1\n`);
    // the spool folder is made just before stdin is read
    await waitUntil('the batch reading stdin', () => existsSync(join(cfg, 'journal', 'spool')), 30_000);
    child.kill('SIGINT');
    expect(await closed, stderr).toBe(130);
    expect(stderr).toMatch(
      /^mpay: interrupted before any row started: 0 done, 0 already done, 0 failed, 0 unknown; nothing was sent$/m,
    );
    expect(stderr).toMatch(
      /^Resume with: mpay deposit batch - --concurrency 3 --profile default --env sandbox --base-url http:\/\/127\.0\.0\.1:\d+ < FILE$/m,
    );
    expect(stderr).toMatch(/^ {2}\(FILE: the same rows, on stdin\)$/m);
    // the spooled rows were removed
    expect(readdirSync(join(cfg, 'journal', 'spool'))).toEqual([]);
  },
);
