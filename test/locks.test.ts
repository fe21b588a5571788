// Locks and their holders (journal/locks.ts), in this process: a holder known for sure to be gone is taken
// over at once, one that may be alive elsewhere (another container's process namespace) is not, and a
// takeover claims the lock only from the holder it found dead, never from one that took it meanwhile.
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BusyError } from '../src/api/errors.js';
import { holdLock, lockName, LockLostError } from '../src/journal/locks.js';
import { tempDir } from './helpers.js';

/** A process id that no process has now (ESRCH): what a holder killed with -9 leaves in its owner file. */
function deadPid(): number {
  for (let pid = 4_000_000; pid > 1000; pid -= 7919) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free process id found');
}

/** A lock left behind by a holder: its fresh folder, and an owner file naming it as `over` says. */
function leftBehind(over: Record<string, unknown> = {}) {
  const dir = tempDir();
  const name = lockName('transaction', 'left');
  mkdirSync(join(dir, 'locks', `${name}.lock`), { recursive: true, mode: 0o700 });
  const ownerFile = join(dir, 'locks', `${name}.owner`);
  const owner = {
    pid: deadPid(),
    host: hostname(),
    boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    pidns: readlinkSync('/proc/self/ns/pid'),
    since: new Date().toISOString(),
    token: 'dead-holder',
    ...over,
  };
  writeFileSync(ownerFile, JSON.stringify(owner), { mode: 0o600 });
  return { dir, name, ownerFile, owner };
}

const ownerIn = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe.skipIf(process.platform !== 'linux')('a lock left behind', () => {
  it('by a dead holder of this host, boot and process namespace is taken over at once', async () => {
    const { dir, name, ownerFile } = leftBehind();
    const held = await holdLock(dir, name, 'the deposit left');
    expect(ownerIn(ownerFile).pid).toBe(process.pid);
    held.check();
    await held();
  });

  it('by a holder in another process namespace (another container: its pid is not ours to test) is not', async () => {
    for (const pidns of ['pid:[4026530000]', undefined]) {
      const { dir, name, ownerFile, owner } = leftBehind({ pidns });
      await expect(holdLock(dir, name, 'the deposit left'), String(pidns)).rejects.toThrow(
        new RegExp(`Another mpay process \\(pid ${owner.pid} on .*\\) is running the deposit left`),
      );
      expect(ownerIn(ownerFile).token).toBe('dead-holder');
    }
  });

  it('by a holder of another host or boot is not either', async () => {
    for (const over of [{ host: 'elsewhere' }, { boot: 'another-boot' }, { boot: undefined }]) {
      const { dir, name, ownerFile } = leftBehind(over);
      await expect(holdLock(dir, name, 'the deposit left'), JSON.stringify(over)).rejects.toBeInstanceOf(
        BusyError,
      );
      expect(ownerIn(ownerFile).token).toBe('dead-holder');
    }
  });

  it('is not claimed from a holder that took it over between our look at its owner and our claim', async () => {
    // Two mpay processes find the same dead holder; the other one claims the lock first and writes its own
    // owner file. Ours, which read the dead holder's token before, must find that token gone and stay out.
    const { dir, name, ownerFile, owner } = leftBehind();
    const theirs = { ...owner, pid: process.ppid, token: 'the-other-mpay' };
    const kill = process.kill;
    let raced = 0;
    process.kill = ((pid: number, signal?: string | number) => {
      // The liveness test of the dead holder is the moment between the look and the claim.
      if (pid === owner.pid && signal === 0 && !raced++) writeFileSync(ownerFile, JSON.stringify(theirs));
      return kill.call(process, pid, signal);
    }) as typeof process.kill;
    try {
      await expect(holdLock(dir, name, 'the deposit left')).rejects.toBeInstanceOf(BusyError);
    } finally {
      process.kill = kill;
    }
    expect(raced).toBe(1);
    // the other's claim stands: its owner file is back in place, whole
    expect(ownerIn(ownerFile)).toEqual(theirs);
    expect(readdirSync(join(dir, 'locks')).sort()).toEqual([`${name}.lock`, `${name}.owner`]);
  });
});

describe.skipIf(process.platform !== 'linux')('a lock held by this process', () => {
  it('fails its check once another holder’s token is in its owner file, and is shared when taken again', async () => {
    const dir = tempDir();
    const name = lockName('transaction', 'mine');
    const held = await holdLock(dir, name, 'the deposit mine');
    const again = await holdLock(dir, name, 'the deposit mine');
    const ownerFile = join(dir, 'locks', `${name}.owner`);
    held.check();
    await again();
    held.check();
    writeFileSync(ownerFile, JSON.stringify({ ...ownerIn(ownerFile), token: 'theirs' }));
    expect(() => held.check()).toThrow(LockLostError);
    await held();
    // released, it leaves the other's owner file alone
    expect(ownerIn(ownerFile).token).toBe('theirs');
  });
});
