// Files mpay writes outside its own folder (--out, --trace, the support bundle) may sit in a shared folder
// such as /tmp, where another user can plant a link: one is never written through. An output whose path is
// a link is refused; an existing file is replaced by a new one made exclusively, 0600 whatever the umask.
import { lstatSync, unlinkSync } from 'node:fs';
import { UsageError } from './errors.js';

/** Refuses a link at `path`, and removes a file there, so that an exclusive create ('wx') can follow. */
export function clearForOutput(path: string, what: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isSymbolicLink())
    throw new UsageError(`Refusing to write ${what} through the link ${path}`, {
      hint: 'Give another path, or remove the link',
    });
  if (st.isDirectory()) throw new UsageError(`${path} is a folder: give a file for ${what}`);
  unlinkSync(path);
}
