// One run at a time: a batch, a resume and a confirm hold a lock on what they continue (a batch or a
// confirm by its references in order; a transaction by its place and reference) for as long as they
// send, and the money gate holds each transaction's lock around each of its money steps, so that a second
// mpay process never sends a reference the first is sending. The locks are folders beside the journal
// (proper-lockfile: an atomic mkdir, kept fresh while held, released when the process exits, Ctrl-C
// included), each with an owner file beside it that names its holder: its process id and start time, its
// host, boot and process namespace, since when, and a token of its own.
//
// A holder known for sure to be gone (same host, boot and process namespace; its process id not alive,
// or alive with another start time: a new process that reused the id; liveness.ts) is taken over at
// once. In doubt (a holder on another host or in another container, an owner file not written yet), the
// lock is taken over only once it went stale (10 s without a refresh, as a process killed with -9, or
// one stopped with SIGSTOP, leaves it). A holder whose lock was taken over learns it at its next check:
// the money gate checks as it opens each money step, and the sender just before each try of its request,
// after any wait (api/sender.ts). It then stops. What passed its last check before the takeover still goes: a request
// already on the wire, or one whose process was paused between its check and its send (a check reads the
// owner file, it cannot hold the other process back); its 'sent' line is in the journal before it, so
// the new holder finds it sent and reports it, never sends it again.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { requirePrivate } from '../common/private-path.js';
import { join } from 'node:path';
import { BusyError, LocalFileError } from '../common/errors.js';
import { processGone, readText, startOf } from '../common/liveness.js';

/** A lock's name from what it guards: any text, as a short digest that is safe as a file name. */
export function lockName(...parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** A lock held: its release, and a check that throws when another mpay took it over meanwhile. */
export type Held = (() => Promise<void>) & { check(): void };

/** Who holds a lock, as its owner file says. */
interface Owner {
  pid: number;
  /** the process's start time, in clock ticks since boot (Linux), to tell a reused process id */
  start?: string;
  host: string;
  boot?: string;
  pidns?: string;
  since: string;
  token: string;
}

/** The lock was taken over by another mpay while this one held it (stopped, or paused past its stale time). */
export class LockLostError extends BusyError {}

const STALE_MS = 10_000;

/** This machine's boot, as Linux names it (a holder of another boot is gone, or elsewhere). */
const bootId = () => readText('/proc/sys/kernel/random/boot_id');

function me(token: string): Owner {
  return {
    pid: process.pid,
    start: startOf('self'),
    host: hostname(),
    boot: bootId(),
    pidns: namespaceOf(),
    since: new Date().toISOString(),
    token,
  };
}

/** The process namespace's identity (the link's target, pid:[4026531836]): two containers differ. */
function namespaceOf(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

function readOwner(path: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Partial<Owner>;
    return typeof o.pid === 'number' && typeof o.token === 'string' && typeof o.since === 'string'
      ? (o as Owner)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the owner is known for sure to be gone: on this host, boot and namespace, its process not there. */
function gone(o: Owner): boolean {
  // Where no boot id is read (not Linux), no holder is known to be gone; one without a boot id differs.
  const boot = bootId();
  if (!boot || o.boot !== boot || o.host !== hostname()) return false;
  if (!o.pidns || o.pidns !== namespaceOf()) return false;
  return processGone(o.pid, o.start);
}

/** The locks this process holds, by path: a transaction's lock taken again inside its holder is shared. */
const mine = new Map<string, { count: number; held: Held }>();

/**
 * Takes the lock `name` in the journal folder `dir`, or refuses at once with a BusyError (exit 11) that
 * names `what` and its holder. Taken again in the process that holds it, it is shared (counted). `warn`
 * is told when the lock folder was made private again.
 */
export async function holdLock(
  dir: string,
  name: string,
  what: string,
  warn?: (message: string) => void,
): Promise<Held> {
  const locks = join(dir, 'locks');
  const path = join(locks, name);
  let entry = mine.get(path);
  if (entry) {
    entry.held.check();
    entry.count++;
  } else {
    try {
      mkdirSync(locks, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new LocalFileError(
        `Cannot make the lock folder ${locks} (${(err as NodeJS.ErrnoException).code})`,
        { cause: err },
      );
    }
    // mpay's own, as the journal is (common/private-path.ts)
    const warning = requirePrivate(locks, 'folder', 'journal lock');
    if (warning) warn?.(warning);
    entry = { count: 1, held: await take(path, what) };
    mine.set(path, entry);
  }
  // Each holder's one release; the lock itself goes (and leaves this process's list) with the last.
  const shared = entry;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    if (--shared.count > 0) return;
    mine.delete(path);
    await shared.held();
  };
  return Object.assign(release, { check: shared.held.check });
}

async function take(path: string, what: string, again = true): Promise<Held> {
  const { lock } = await import('proper-lockfile');
  const ownerFile = `${path}.owner`;
  const token = randomBytes(12).toString('hex');
  let lost = false;
  let release: () => Promise<void>;
  try {
    // proper-lockfile keeps its locks by the path given (which need not exist): one path a lock, its folder
    // `${path}.lock` (its default, which a takeover below removes).
    release = await lock(path, {
      realpath: false,
      retries: 0,
      stale: STALE_MS,
      update: 2_000,
      // Found at a refresh: the lock's folder changed under this holder (taken over, or removed by hand).
      onCompromised: () => {
        lost = true;
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED')
      throw new LocalFileError(`Cannot take the lock for ${what} in ${path} (${(err as Error).message})`, {
        cause: err,
      });
    const owner = readOwner(ownerFile);
    if (again && owner && gone(owner) && claim(ownerFile, owner.token)) {
      rmSync(`${path}.lock`, { recursive: true, force: true });
      return take(path, what, false);
    }
    throw busy(what, owner);
  }
  try {
    writeFileSync(ownerFile, JSON.stringify(me(token)), { mode: 0o600 });
  } catch (err) {
    await release().catch(() => {});
    throw new LocalFileError(`Cannot write the lock's owner file ${ownerFile} (${(err as Error).message})`, {
      cause: err,
    });
  }
  const check = () => {
    if (!lost && readOwner(ownerFile)?.token === token) return;
    lost = true;
    // Lost at a refresh, the owner file may still be this holder's (the folder removed, or taken by one
    // that has not written its own yet): it names no other then.
    const owner = readOwner(ownerFile);
    const other = owner?.token === token ? undefined : owner;
    throw new LockLostError(
      `Another mpay process${other ? ` (${holder(other)})` : ''} took over the lock on ${what} while this one held it (it was stopped or paused past ${STALE_MS / 1000} s); this one sends nothing more for it`,
      { hint: 'See `mpay history` for what each process sent; run the command again once the other is done' },
    );
  };
  const done = async () => {
    try {
      if (readOwner(ownerFile)?.token === token) rmSync(ownerFile, { force: true });
      await release();
    } catch {
      // Already released or taken over: nothing of this holder's is left to remove.
    }
  };
  return Object.assign(done, { check });
}

/**
 * Claims a dead holder's lock: the owner file renamed away is the compare-and-swap that lets only one of
 * several processes take it over; one that finds another owner in it puts it back and stays out.
 */
function claim(ownerFile: string, token: string): boolean {
  const aside = `${ownerFile}.${randomBytes(6).toString('hex')}`;
  try {
    renameSync(ownerFile, aside);
  } catch {
    return false;
  }
  const o = readOwner(aside);
  if (o?.token === token) {
    rmSync(aside); // just renamed there by this process, under a name of its own
    return true;
  }
  try {
    renameSync(aside, ownerFile);
  } catch {
    // the other holder's file could not be put back: its check() will say its lock was lost
  }
  return false;
}

function holder(o: Owner): string {
  return `pid ${o.pid} on ${o.host}, since ${o.since.slice(0, 19).replace('T', ' ')} UTC`;
}

function busy(what: string, owner: Owner | undefined): BusyError {
  return new BusyError(
    `Another mpay process${owner ? ` (${holder(owner)})` : ''} is running ${what} right now; nothing was sent`,
    {
      hint: `Wait for it to finish, then run this command again: it continues what is left. A holder that is gone is taken over at once on this machine; one on another machine or container after ${STALE_MS / 1000} s without a refresh`,
    },
  );
}
