// The sandbox's state in SQLite (src/sandbox/tx-store.ts), where the process is the subject: `mpay sandbox
// --data` killed with -9 in a burst of initiates from four clients, three times, and a disk that fills up
// under it (a 3 MB tmpfs in a mount namespace of its own, as root): every initiate answered 200 is there
// after the restart, the ones the disk refused were answered 500 in the API's shape A, and no hash token was
// handed out twice. Each test waits on events (answers counted, lines printed), never on the clock.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiInitiate, apiToken, bin, firstJsonLine, ownProcess, sandboxProcess, tempDir } from './helpers.js';

interface Answered {
  /** reference → the hash token answered with 200 */
  ok: Map<string, string>;
  /** the bodies of the answers that were not 200 */
  refused: { status: number; body: unknown }[];
}

/**
 * Four clients initiating at once until the server goes away (or `enough` says stop): each answer is
 * recorded; `reached(n)` resolves once n initiates were answered 200.
 */
function burst(url: string, token: string, prefix: string, answered: Answered, enough: () => boolean) {
  let waiters: [number, () => void][] = [];
  const client = async (c: number) => {
    for (let i = 0; !enough(); i++) {
      const ref = `${prefix}-c${c}-${i}`;
      let res: Response;
      try {
        res = await apiInitiate(url, token, ref);
      } catch {
        return; // the server is gone
      }
      const body = await res.json().catch(() => undefined);
      if (res.status === 200) answered.ok.set(ref, (body as { data: { has_token: string } }).data.has_token);
      else answered.refused.push({ status: res.status, body });
      waiters = waiters.filter(([n, go]) => (answered.ok.size >= n ? (go(), false) : true));
    }
  };
  const done = Promise.all([0, 1, 2, 3].map(client));
  const reached = (n: number) => new Promise<void>((go) => waiters.push([n, go]));
  return { done, reached };
}

const exited = (child: ChildProcess) => new Promise((r) => child.once('close', r));

interface Held {
  reference: string;
  hash_token: string;
}

/** Every initiate answered 200 is held with the hash token it was answered with; no hash token twice. */
function expectAllHeld(list: Held[], answered: Answered) {
  const held = new Map(list.map((t) => [t.reference, t.hash_token]));
  const lost = [...answered.ok].filter(([ref, hash]) => held.get(ref) !== hash);
  expect(lost, 'initiates answered 200, then lost').toEqual([]);
  expect(new Set(list.map((t) => t.hash_token)).size).toBe(list.length);
  expect(new Set(answered.ok.values()).size).toBe(answered.ok.size);
}

describe('the sandbox on SQLite, as a process', { timeout: 180_000 }, () => {
  it('kill -9 in a burst of initiates from four clients, three times: every one answered 200 is there after the restart, no hash token handed out twice', async ({
    onTestFinished,
  }) => {
    const data = join(tempDir(), 'sandbox.db');
    const answered: Answered = { ok: new Map(), refused: [] };
    const start = async () => {
      const child = sandboxProcess(['--json', '--data', data], onTestFinished);
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      return { child, url: (await firstJsonLine(child, () => err)).url as string };
    };
    for (let round = 0; round < 3; round++) {
      const { child, url } = await start();
      const before = answered.ok.size;
      const b = burst(url, await apiToken(url), `kill${round}`, answered, () => false);
      // killed once this round has 150 answers and while the four clients are still sending
      await b.reached(before + 150);
      child.kill('SIGKILL');
      await exited(child);
      await b.done;
    }
    const { child, url } = await start();
    try {
      expectAllHeld(await (await fetch(`${url}/_sandbox/transactions`)).json(), answered);
      expect(answered.ok.size).toBeGreaterThanOrEqual(450);
      // nothing but 200 was answered before each kill (a refusal would hide a loss as an error)
      expect(answered.refused).toEqual([]);
    } finally {
      child.kill('SIGINT');
      await exited(child);
    }
  });

  const root = process.getuid?.() === 0;
  let namespaces = false;
  try {
    if (root) execFileSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
    namespaces = root;
  } catch {
    // not allowed here (a container without CAP_SYS_ADMIN): said below
  }
  // Never skipped on CI, which runs as root: there it fails if it cannot run.
  const canFill = namespaces || process.env.CI === 'true';
  if (!canFill)
    console.warn(
      'sandbox-store.process.test.ts: the full-disk test is skipped: it needs root and `unshare -m` (a tmpfs of its own)',
    );
  it.runIf(canFill)(
    'a full disk (a 3 MB tmpfs): the initiates it refuses are answered 500 in shape A and logged, and every one answered 200 survives a restart',
    async ({ onTestFinished }) => {
      const dir = tempDir();
      const data = join(dir, 'disk', 'sandbox.db');
      const sandbox = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} sandbox --port 0 --json --data ${JSON.stringify(data)}`;
      // One mount namespace for both sandboxes: the tmpfs lives as long as the shell.
      const script = [
        `mkdir -p ${JSON.stringify(join(dir, 'disk'))}`,
        `mount -t tmpfs -o size=3m tmpfs ${JSON.stringify(join(dir, 'disk'))}`,
        `${sandbox} & echo "{\\"pid\\":$!}"; wait`,
        `exec ${sandbox}`,
      ].join(' && ');
      const shell = ownProcess(
        ['unshare', '-m', 'sh', '-c', script],
        { stdio: ['ignore', 'pipe', 'pipe'] },
        onTestFinished,
      );
      let err = '';
      shell.stderr!.on('data', (d) => (err += d));
      const lines = createInterface({ input: shell.stdout! })[Symbol.asyncIterator]();
      const next = async () => {
        const { value, done } = await lines.next();
        if (done) throw new Error(`the shell ended: ${err}`);
        return JSON.parse(value as string);
      };
      const { pid } = await next();
      const { url } = await next();
      const answered: Answered = { ok: new Map(), refused: [] };
      // until the disk has refused 50 initiates (it holds a few thousand), or 15,000 were answered (one that
      // never refuses, answering 200 for what it cannot write, fails below instead of running on)
      const enough = () =>
        answered.refused.length >= 50 || answered.ok.size + answered.refused.length >= 15_000;
      const b = burst(url, await apiToken(url), 'full', answered, enough);
      await b.done;
      expect(answered.ok.size).toBeGreaterThan(100);
      expect(answered.refused.length).toBeGreaterThanOrEqual(50);
      for (const r of answered.refused)
        expect(r).toEqual({
          status: 500,
          body: { success: false, message: 'Something went wrong. Please try again later.', errors: [] },
        });
      expect(err).toMatch(/POST \/restapi\/v1\/payments\/initiate: answered 500: .*(full|space)/i);
      process.kill(pid, 'SIGKILL');
      const { url: again } = await next();
      try {
        expectAllHeld(await (await fetch(`${again}/_sandbox/transactions`)).json(), answered);
      } finally {
        shell.kill('SIGINT');
        await exited(shell);
      }
    },
  );
});
