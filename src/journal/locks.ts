// One run at a time: a batch, a resume and a confirm hold a lock on what they continue (a batch or a
// confirm by its references in order; a transaction by its place and reference) for as long as they
// send, and each row of a batch its transaction's, so that a second
// mpay process never sends a reference the first is sending. The locks are folders beside the journal
// (proper-lockfile: an atomic mkdir, kept fresh while held, taken over when its holder died without
// releasing it, and released when the process exits, Ctrl-C included).
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { requirePrivate } from '../api/private-path.js';
import { join } from 'node:path';
import { BusyError, LocalFileError } from '../api/errors.js';

/** A lock's name from what it guards: any text, as a short digest that is safe as a file name. */
export function lockName(...parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/**
 * Takes the lock `name` in the journal folder `dir`, or refuses at once with a BusyError (exit 11) that
 * names `what`. Returns the release.
 */
export async function holdLock(dir: string, name: string, what: string): Promise<() => Promise<void>> {
  const { lock } = await import('proper-lockfile');
  const locks = join(dir, 'locks');
  try {
    mkdirSync(locks, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new LocalFileError(
      `Cannot make the lock folder ${locks} (${(err as NodeJS.ErrnoException).code})`,
      {
        cause: err,
      },
    );
  }
  requirePrivate(locks, 'folder', 'journal lock'); // mpay's own, as the journal is (api/private-path.ts)
  try {
    // proper-lockfile keeps its locks by the path given (which need not exist): one path a lock.
    return await lock(join(locks, name), {
      lockfilePath: join(locks, `${name}.lock`),
      realpath: false,
      retries: 0,
      // Taken over 10 s after its holder stopped refreshing it (killed with -9): that one sends nothing more.
      stale: 10_000,
      update: 2_000,
      // A lock lost while held (its folder removed by hand): the run goes on; only a warning would help.
      onCompromised: () => {},
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED')
      throw new BusyError(`Another mpay process is running ${what} right now; nothing was sent`, {
        hint: 'Wait for it to finish, then run this command again: it continues what is left. If no mpay is running (one was killed), the lock is taken over 10 s after it was last refreshed',
      });
    throw new LocalFileError(`Cannot take the lock for ${what} in ${locks} (${(err as Error).message})`, {
      cause: err,
    });
  }
}
