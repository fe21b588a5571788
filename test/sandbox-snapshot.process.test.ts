// The snapshot beside the sandbox's data file (src/sandbox/snapshot.ts, state-snapshot.ts): a restart from
// it and the log after it holds what a restart from the log alone holds; a snapshot that is torn, damaged,
// of another version or of another log, or whose log changed before its place, is set aside with a
// warning and the whole log read; a kill -9 while a snapshot is written leaves the previous one in use.
// Real HTTP to real sandboxes; the kill is of a real `mpay sandbox` process.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstJsonLine, sandbox, spawnMpay, tempDir, waitUntil } from './helpers.js';
import { initiate, tokenOf } from './sandbox-calls.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

const snapshotNow = async (sb: { url: string }, body: Record<string, unknown> = {}) =>
  (
    await fetch(`${sb.url}/_sandbox/snapshot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json();

const readLine = (sb: Sb) => sb.logs.find((l) => l.startsWith('read '));
const setAside = (sb: Sb) => sb.logs.filter((l) => l.startsWith('set aside'));

// The tests share nothing (each its own folder and sandboxes) and run at once.
describe('the sandbox snapshot', { concurrent: true }, () => {
  it('a kill -9 while a snapshot is written leaves the one before it in use, and nothing lost', async ({
    onTestFinished,
  }) => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const args = ['sandbox', '--port', '0', '--json', '--data', file];
    const started = async () => {
      const p = spawnMpay(args, {});
      // killed when the test ends, however it ends: a sandbox serves until it is stopped
      onTestFinished(async () => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) return;
        p.child.kill('SIGKILL');
        await p.done;
      });
      const info = (await firstJsonLine(p.child)) as { url: string };
      let err = '';
      p.child.stderr.on('data', (d) => (err += d));
      return { ...p, url: info.url, stderr: () => err };
    };
    const one = await started();
    const t1 = await tokenOf(one);
    for (let i = 0; i < 3; i++) await initiate(one, t1, 'deposit');
    one.child.kill('SIGINT');
    expect((await one.done).code).toBe(0);
    expect(existsSync(`${file}.snapshot`)).toBe(true);

    const two = await started();
    const t2 = await tokenOf(two);
    for (let i = 0; i < 3; i++) await initiate(two, t2, 'withdraw');
    const held = await (await fetch(`${two.url}/_sandbox/transactions`)).json();
    expect(held).toHaveLength(6);
    void snapshotNow(two, { pause_after_bytes: 200 }).catch(() => {});
    await waitUntil('the snapshot to pause', () => two.stderr().includes('snapshot paused after 200 bytes'));
    // the snapshot under way, in a temporary file beside the log (checked after the restart below)
    const temporary = readdirSync(dir).filter((n) => /^\.sandbox\.log\.snapshot\.[0-9a-f]{12}\.tmp$/.test(n));
    two.child.kill('SIGKILL');
    await two.done;

    const three = await sandbox({ dataFile: file });
    try {
      expect(setAside(three)).toEqual([]);
      // the snapshot of the first run's shutdown, and the second run's token and three initiates after it
      expect(readLine(three)).toMatch(
        /: 6 transactions, from its snapshot \([\d.]+ MB\) and the 4 lines of the log after it/,
      );
      expect(three.state.list()).toEqual(held);
      expect(temporary).toHaveLength(1);
      expect(three.logs).toContain(`removed ${temporary[0]}, left by an interrupted write`);
      expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    } finally {
      await three.close();
    }
  }, 60_000);
});
