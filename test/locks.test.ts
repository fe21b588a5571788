// Locks and their holders (journal/locks.ts), in this process: a holder known for sure to be gone is taken
// over at once, one that may be alive elsewhere (another container's process namespace) is not, and a
// takeover claims the lock only from the holder it found dead, never from one that took it meanwhile.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BusyError, LocalFileError } from '../src/common/errors.js';
import { Journal } from '../src/journal/journal.js';
import { holdLock, lockName, LockLostError } from '../src/journal/locks.js';
import { tempDir, waitUntil } from './helpers.js';

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

describe.skipIf(process.platform !== 'linux')('a lock left behind, claimed by two at once', () => {
  it('is not taken when another mpay renamed the dead holder’s owner file away first: that one’s claim stands', async () => {
    // Two mpay processes find the same dead holder; the other one's claim (its rename of the owner file)
    // lands between our look at the owner and our own rename, which then finds no file to move.
    const { dir, name, ownerFile, owner } = leftBehind();
    const theirs = `${ownerFile}.their-claim`;
    const kill = process.kill;
    let raced = 0;
    process.kill = ((pid: number, signal?: string | number) => {
      if (pid === owner.pid && signal === 0 && !raced++) renameSync(ownerFile, theirs);
      return kill.call(process, pid, signal);
    }) as typeof process.kill;
    let err: unknown;
    try {
      err = await holdLock(dir, name, 'the deposit left').catch((e: unknown) => e);
    } finally {
      process.kill = kill;
    }
    expect(raced).toBe(1);
    expect(err).toBeInstanceOf(BusyError);
    expect((err as BusyError).message).toMatch(
      new RegExp(`^Another mpay process \\(pid ${owner.pid} on .*\\) is running the deposit left`),
    );
    // the lock's folder and the other's claim are left as they were; nothing of ours beside them
    expect(readdirSync(join(dir, 'locks')).sort()).toEqual([`${name}.lock`, `${name}.owner.their-claim`]);
    expect(ownerIn(theirs)).toEqual(owner);
  });
});

describe.skipIf(process.platform !== 'linux')('a lock’s name', () => {
  it('is the one every mpay gives it, so that a lock another version of mpay holds excludes this one', async () => {
    // The folder's name on disk is shared by every version of mpay that may run at once on one journal:
    // 32 hex digits of the SHA-256 of what it guards (a transaction: its server, merchant and reference).
    const parts = ['transaction', 'https://api.example.test', 'M-1', 'dep-1'];
    expect(lockName(...parts)).toBe('2af248a56aee0c109e4c59d7d56224f6');
    expect(lockName('batch', 'abc')).toBe('1b2d6f78acc08b8fc732e2e268fdaccf');
    // another mpay (its pid: this test's parent, alive) holds the deposit's lock under that name
    const { dir, name } = leftBehind({ pid: process.ppid, start: startOf(process.ppid) });
    const locks = join(dir, 'locks');
    renameSync(join(locks, `${name}.lock`), join(locks, '2af248a56aee0c109e4c59d7d56224f6.lock'));
    renameSync(join(locks, `${name}.owner`), join(locks, '2af248a56aee0c109e4c59d7d56224f6.owner'));
    await expect(holdLock(dir, lockName(...parts), 'the deposit dep-1')).rejects.toThrow(
      new RegExp(`^Another mpay process \\(pid ${process.ppid} on .*\\) is running the deposit dep-1`),
    );
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

/** The start time of a process as /proc says (field 22 of its stat). */
const startOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
};

describe.skipIf(process.platform !== 'linux')('a lock whose holder is alive', () => {
  it('is refused at once, naming the holder, since when, and what to do', async () => {
    const since = '2026-11-27T10:11:12.345Z';
    const { dir, name } = leftBehind({ pid: process.ppid, start: startOf(process.ppid), since });
    const err = await holdLock(dir, name, 'the deposit left').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusyError);
    expect((err as BusyError).message).toBe(
      `Another mpay process (pid ${process.ppid} on ${hostname()}, since 2026-11-27 10:11:12 UTC) is running the deposit left right now; nothing was sent`,
    );
    expect((err as BusyError).hint).toBe(
      'Wait for it to finish, then run this command again: it continues what is left. A holder that is gone is taken over at once on this machine; one on another machine or container after 10 s without a refresh',
    );
  });

  it('is taken over when its process id now belongs to a process that started at another time', async () => {
    const { dir, name, ownerFile } = leftBehind({ pid: process.ppid, start: '1' });
    const held = await holdLock(dir, name, 'the deposit left');
    expect(ownerIn(ownerFile).pid).toBe(process.pid);
    await held();
    // without a start time to compare, an alive holder is not known to be gone
    const unknown = leftBehind({ pid: process.ppid });
    await expect(holdLock(unknown.dir, unknown.name, 'the deposit left')).rejects.toBeInstanceOf(BusyError);
  });

  it('by a holder whose id no process can have (Node refuses it) is taken over at once, as a spool file of it is removed', async () => {
    const { dir, name, ownerFile } = leftBehind({ pid: 2 ** 40 });
    const held = await holdLock(dir, name, 'the deposit left');
    expect(ownerIn(ownerFile).pid).toBe(process.pid);
    await held();
  });

  it('an owner file that does not say who (no number pid, no token, no since) names no holder', async () => {
    for (const over of [{ pid: String(process.ppid) }, { token: 7 }, { since: undefined }]) {
      const { dir, name } = leftBehind({ ...over });
      const err = await holdLock(dir, name, 'the deposit left').catch((e: unknown) => e);
      expect((err as BusyError).message, JSON.stringify(over)).toBe(
        'Another mpay process is running the deposit left right now; nothing was sent',
      );
    }
  });
});

describe.skipIf(process.platform !== 'linux')('a lock taken and released', () => {
  it('is a lock folder and an owner file 0600 naming this process; both go with the last release, once', async () => {
    const dir = tempDir();
    const name = lockName('transaction', 'counted');
    const locks = join(dir, 'locks');
    const before = new Date().toISOString();
    const one = await holdLock(dir, name, 'the deposit counted');
    const two = await holdLock(dir, name, 'the deposit counted');
    expect(readdirSync(locks).sort()).toEqual([`${name}.lock`, `${name}.owner`]);
    expect(statSync(join(locks, `${name}.owner`)).mode & 0o777).toBe(0o600);
    // everything another mpay needs to tell whether this holder is gone: its process (id and start time,
    // against a reused id), host, boot and process namespace; since when; and a token of its own
    const owner = ownerIn(join(locks, `${name}.owner`));
    expect(owner).toEqual({
      pid: process.pid,
      start: startOf(process.pid),
      host: hostname(),
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidns: readlinkSync('/proc/self/ns/pid'),
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      token: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    expect(owner.since >= before && owner.since <= new Date().toISOString()).toBe(true);
    // a release called twice counts once: the other holder still holds it
    await one();
    await one();
    expect(readdirSync(locks).sort()).toEqual([`${name}.lock`, `${name}.owner`]);
    two.check();
    await two();
    expect(readdirSync(locks)).toEqual([]);
    // taken again afresh, with a token of its own
    const three = await holdLock(dir, name, 'the deposit counted');
    expect(ownerIn(join(locks, `${name}.owner`)).token).not.toBe(owner.token);
    three.check();
    await three();
    expect(existsSync(join(locks, `${name}.lock`))).toBe(false);
  });

  it('taken over from a dead holder, leaves nothing of the claim beside it', async () => {
    const { dir, name } = leftBehind();
    const held = await holdLock(dir, name, 'the deposit left');
    expect(readdirSync(join(dir, 'locks')).sort()).toEqual([`${name}.lock`, `${name}.owner`]);
    await held();
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
  });

  it('lost to another holder, says who took it and what to do, then keeps saying so', async () => {
    const dir = tempDir();
    const name = lockName('transaction', 'lost');
    const held = await holdLock(dir, name, 'the deposit lost');
    const ownerFile = join(dir, 'locks', `${name}.owner`);
    const ours = ownerIn(ownerFile).token as string;
    const theirs = {
      ...ownerIn(ownerFile),
      pid: 4242,
      host: 'other-host',
      since: '2026-11-27T09:08:07.000Z',
      token: 't',
    };
    writeFileSync(ownerFile, JSON.stringify(theirs));
    const err = (() => {
      try {
        held.check();
      } catch (e) {
        return e as LockLostError;
      }
    })();
    expect(err?.message).toBe(
      'Another mpay process (pid 4242 on other-host, since 2026-11-27 09:08:07 UTC) took over the lock on the deposit lost while this one held it (it was stopped or paused past 10 s); this one sends nothing more for it',
    );
    expect(err?.hint).toBe(
      'See `mpay history` for what each process sent; run the command again once the other is done',
    );
    // the other's file back as ours: still lost, once lost
    writeFileSync(ownerFile, JSON.stringify({ ...theirs, token: ours }));
    expect(() => held.check()).toThrow(LockLostError);
    await held();
  });

  it('lost with no owner file left, says so without naming a holder', async () => {
    const dir = tempDir();
    const name = lockName('transaction', 'gone');
    const held = await holdLock(dir, name, 'the deposit gone');
    rmSync(join(dir, 'locks', `${name}.owner`));
    expect(() => held.check()).toThrow(
      /^Another mpay process took over the lock on the deposit gone while this one held it/,
    );
    await held();
  });
});

describe('a lock that cannot be taken', () => {
  it('where its folder cannot be made: a local error (exit 9) naming the folder', async () => {
    const dir = join(tempDir(), 'a-file');
    writeFileSync(dir, '');
    const err = await holdLock(dir, lockName('x'), 'the deposit x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalFileError);
    expect((err as LocalFileError).message).toBe(
      `Cannot make the lock folder ${join(dir, 'locks')} (ENOTDIR)`,
    );
    expect((err as LocalFileError).exitCode).toBe(9);
    // what --debug and a script's catch can read: the system's own error
    expect(((err as LocalFileError).cause as NodeJS.ErrnoException).code).toBe('ENOTDIR');
  });

  it('where its folder is open to others: refused as a journal lock folder', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'locks'), { mode: 0o700 });
    chmodSync(join(dir, 'locks'), 0o777);
    await expect(holdLock(dir, lockName('x'), 'the deposit x')).rejects.toThrow(/journal lock folder/);
  });

  it('where its folder is readable by others: made private again, and the holder told', async () => {
    const dir = tempDir();
    const locks = join(dir, 'locks');
    mkdirSync(locks, { mode: 0o700 });
    chmodSync(locks, 0o755);
    const warned: string[] = [];
    const held = await holdLock(dir, lockName('x'), 'the deposit x', (m) => warned.push(m));
    await held();
    expect(warned).toEqual([`${locks} was mode 755; set it to 700 since it holds mpay's records`]);
    expect(statSync(locks).mode & 0o777).toBe(0o700);
    // a Journal's hold tells the Journal's warn
    const told: string[] = [];
    const j = new Journal(tempDir(), 'default', 'sandbox', { warn: (m) => told.push(m) });
    mkdirSync(join(j.dir, 'locks'), { recursive: true, mode: 0o700 });
    chmodSync(join(j.dir, 'locks'), 0o750);
    await (
      await j.hold(['deposit', 'x'], 'the deposit x')
    )();
    expect(told).toEqual([
      `${join(j.dir, 'locks')} was mode 750; set it to 700 since it holds mpay's records`,
    ]);
  });

  it('where its owner file cannot be written: a local error, and the lock is not kept', async () => {
    const dir = tempDir();
    const name = lockName('transaction', 'owner');
    mkdirSync(join(dir, 'locks', `${name}.owner`), { recursive: true, mode: 0o700 });
    const err = await holdLock(dir, name, 'the deposit owner').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalFileError);
    expect((err as LocalFileError).message).toMatch(
      new RegExp(`^Cannot write the lock's owner file ${join(dir, 'locks', `${name}.owner`)} \\(EISDIR`),
    );
    expect((err as LocalFileError).exitCode).toBe(9);
    expect(((err as LocalFileError).cause as NodeJS.ErrnoException).code).toBe('EISDIR');
    expect(existsSync(join(dir, 'locks', `${name}.lock`))).toBe(false);
  });

  it('where a stale file (not a folder) is in its place: a local error (exit 9), not a busy one', async () => {
    // Something left a regular file where the lock's folder goes, untouched for a minute: proper-lockfile
    // takes it for a stale lock, and removing it as a folder fails (ENOTDIR) for root too.
    const dir = tempDir();
    const name = lockName('transaction', 'file');
    const locks = join(dir, 'locks');
    mkdirSync(locks, { mode: 0o700 });
    const lockPath = join(locks, `${name}.lock`);
    writeFileSync(lockPath, 'not a lock');
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lockPath, minuteAgo, minuteAgo);
    const err = await holdLock(dir, name, 'the deposit file').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalFileError);
    expect(err).not.toBeInstanceOf(BusyError);
    expect((err as LocalFileError).exitCode).toBe(9);
    expect((err as LocalFileError).message).toBe(
      `Cannot take the lock for the deposit file in ${join(locks, name)} (ENOTDIR: not a directory, rmdir '${lockPath}')`,
    );
    expect(((err as LocalFileError).cause as NodeJS.ErrnoException).code).toBe('ENOTDIR');
    // nothing taken: the file is left as it was, no owner file beside it
    expect(readdirSync(locks)).toEqual([`${name}.lock`]);
    expect(readFileSync(lockPath, 'utf8')).toBe('not a lock');
  });

  it('where its journal folder is so deep that the lock’s path is too long: a local error (exit 9)', async () => {
    // The lock folder's own path fits (just), the lock's inside it does not: ENAMETOOLONG, for root too.
    let dir = tempDir();
    while (join(dir, 'locks').length < 4_060) dir = join(dir, 'd'.repeat(Math.min(200, 4_060 - dir.length)));
    const name = lockName('transaction', 'deep');
    const err = await holdLock(dir, name, 'the deposit deep').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalFileError);
    expect((err as LocalFileError).exitCode).toBe(9);
    expect((err as LocalFileError).message).toMatch(
      /^Cannot take the lock for the deposit deep in \/.+ \(ENAMETOOLONG: name too long, mkdir '.+\.lock'\)$/,
    );
    expect(((err as LocalFileError).cause as NodeJS.ErrnoException).code).toBe('ENAMETOOLONG');
    expect(readdirSync(join(dir, 'locks'))).toEqual([]);
  });
});

describe.skipIf(process.platform !== 'linux')('a lock found changed at its refresh', () => {
  it('(its folder removed under its holder) fails the holder’s next check, naming no other holder', async () => {
    const dir = tempDir();
    const name = lockName('transaction', 'refreshed');
    const locks = join(dir, 'locks');
    // proper-lockfile refreshes a held lock on a timer (every 2 s): a fake one fires it when the test says,
    // and the refresh itself (a stat of the folder) is real
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let held: Awaited<ReturnType<typeof holdLock>>;
    try {
      held = await holdLock(dir, name, 'the deposit refreshed');
      rmSync(join(locks, `${name}.lock`), { recursive: true });
      // no refresh yet: nothing has looked at the folder, the owner file is still this holder's
      held.check();
      await vi.advanceTimersByTimeAsync(2_000);
    } finally {
      vi.useRealTimers();
    }
    const lostError = () => {
      try {
        held.check();
      } catch (e) {
        return e;
      }
    };
    await waitUntil('the refresh to find the lock folder gone', () => lostError() !== undefined);
    const err = lostError();
    expect(err).toBeInstanceOf(LockLostError);
    expect((err as LockLostError).message).toBe(
      'Another mpay process took over the lock on the deposit refreshed while this one held it (it was stopped or paused past 10 s); this one sends nothing more for it',
    );
    // released, it removes its own owner file, and nothing else is left
    await held();
    expect(readdirSync(locks)).toEqual([]);
  });
});
