// One sandbox at a time on a --data file: a lock file beside it (FILE.lock), made with O_EXCL, that names
// its holder (process id and start time). A second sandbox on the same file refuses to start, writing
// nothing. A lock left by a holder that is gone (killed with -9: its process id not alive, or alive with
// another start time) is taken over at once.
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { BusyError } from '../api/errors.js';

interface Owner {
  pid: number;
  start?: string;
  since: string;
  token: string;
}

/** The start time of a process (field 22 of /proc/PID/stat), where /proc has it. */
function startOf(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function readOwner(path: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Partial<Owner>;
    return typeof o.pid === 'number' && typeof o.token === 'string' ? (o as Owner) : undefined;
  } catch {
    return undefined;
  }
}

function gone(o: Owner): boolean {
  try {
    process.kill(o.pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const start = startOf(o.pid);
  return Boolean(o.start && start && start !== o.start);
}

/** Takes the lock on `file` or throws a BusyError naming its holder; the release removes it. */
export function lockData(file: string): () => void {
  const path = `${file}.lock`;
  const token = randomBytes(12).toString('hex');
  const mine: Owner = { pid: process.pid, start: startOf('self'), since: new Date().toISOString(), token };
  for (let tries = 0; ; tries++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(path);
      // gone for sure (or a file never finished): renamed away, so that only one of several takes it over
      if (tries === 0 && (!owner ? unreadableOld(path) : gone(owner))) {
        const aside = `${path}.${randomBytes(6).toString('hex')}`;
        try {
          renameSync(path, aside);
          rmSync(aside, { force: true });
        } catch {
          // another start took it over first: try once more, and find it held
        }
        continue;
      }
      throw new BusyError(
        `Another sandbox${owner ? ` (pid ${owner.pid}, since ${owner.since.slice(0, 19).replace('T', ' ')} UTC)` : ''} is using the data file ${file} (its lock ${path}); nothing was written`,
        {
          hint: 'Stop that sandbox first, or give this one another --data file. A lock left by a sandbox that is gone is taken over at once',
        },
      );
    }
    try {
      writeSync(fd, JSON.stringify(mine));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (readOwner(path)?.token === token) rmSync(path, { force: true });
    };
  }
}

/** A lock file that names no holder: one whose writer died between making and writing it. */
function unreadableOld(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').trim() === '';
  } catch {
    return true;
  }
}
