// Files mpay writes outside its own folder (--out, --trace, the support bundle) may sit in a shared folder
// such as /tmp, where another user can plant a link: one is never written through. An output whose path is
// a link is refused; an existing file is replaced by a new one made exclusively, 0600 whatever the umask.
import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, lstatSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './errors.js';

/**
 * Refuses a path whose folder is missing or not writable: checked as the flags are read (--out, --trace),
 * before anything is sent, and not found at the first write after a request. The folder is written to
 * (a file made exclusively and removed): access(2) alone says yes to root where no file can be made
 * (`/sys`, a read-only mount), and the writes that follow make a file beside the output first.
 */
export function checkOutputFolder(path: string, what: string): void {
  const folder = dirname(resolve(path));
  try {
    accessSync(folder, constants.W_OK);
    const probe = join(folder, `.mpay-write-check-${process.pid}-${randomBytes(4).toString('hex')}`);
    closeSync(openSync(probe, 'wx', 0o600));
    unlinkSync(probe);
  } catch {
    const st = statSync(folder, { throwIfNoEntry: false });
    throw new UsageError(
      !st
        ? `Cannot write ${what} to ${path}: there is no folder ${folder}`
        : !st.isDirectory()
          ? `Cannot write ${what} to ${path}: ${folder} is not a folder`
          : `Cannot write ${what} to ${path}: the folder ${folder} is not writable by this user`,
      { hint: 'Give a path in a folder that exists and that you can write to' },
    );
  }
}

/**
 * Refuses what checkOutputFolder refuses and a link at `path`, and removes a file there, so that an
 * exclusive create ('wx') can follow.
 */
export function clearForOutput(path: string, what: string): void {
  checkOutputFolder(path, what);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isSymbolicLink())
    throw new UsageError(`Refusing to write ${what} through the link ${path}`, {
      hint: 'Give another path, or remove the link',
    });
  if (st.isDirectory()) throw new UsageError(`${path} is a folder: give a file for ${what}`);
  unlinkSync(path);
}
