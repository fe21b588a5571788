// The one rule for every file and folder mpay keeps for itself (SECURITY.md): the config folder and its
// files, the journal folder, its files, index and lock folders, the spool of a batch from stdin, the
// sandbox's --data file. Such a path must be the user's own (or root's: root can write anything anyway),
// not a link, and writable by no group and no other user: else another user could have written what mpay
// would read (another server's base URL, records that say "done"), or could read what mpay writes there
// (the customers' data), and mpay refuses it, exit 9, naming the path and how to mend it, before anything
// is sent. One that others can only read is set back to 0700/0600, with a warning.
import { chmodSync, lstatSync, type Stats } from 'node:fs';
import { LocalFileError } from './errors.js';

export const dirMode = 0o700;
export const fileMode = 0o600;

export type PathKind = 'folder' | 'file';

/** The refusal of a path that breaks the rule, or undefined when it keeps it. */
export function foreignPath(
  path: string,
  st: Stats,
  kind: PathKind,
  label: string,
): LocalFileError | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const what = `${label} ${kind} ${path}`;
  if (st.isSymbolicLink())
    return new LocalFileError(`The ${what} is a link; mpay will not read or write through it`, {
      hint: `Remove the link (rm ${path}); mpay makes its own ${kind} there`,
    });
  if (kind === 'folder' ? !st.isDirectory() : !st.isFile())
    return new LocalFileError(`The ${what} is not a ${kind}; mpay will not read or write it`, {
      hint: `Move it aside (mv ${path} ${path}.aside)`,
    });
  if (st.uid !== uid && st.uid !== 0)
    return new LocalFileError(
      `The ${what} belongs to another user (uid ${st.uid}); mpay will not read or write it`,
      {
        hint: `Use a config folder of your own (MPAY_CONFIG_DIR), or take this one over (chown -R ${uid} ${path}, then chmod ${kind === 'folder' ? '700' : '600'} ${path})`,
      },
    );
  if (st.mode & 0o022)
    return new LocalFileError(
      `The ${what} is writable by ${st.mode & 0o002 ? 'other users' : 'its group'} (mode ${(st.mode & 0o777).toString(8)}); mpay will not read or write it`,
      {
        hint: `Check what is in it, then: chmod ${kind === 'folder' ? '700' : '600'} ${path}`,
      },
    );
  return undefined;
}

/**
 * Checks a path of mpay's against the rule (nothing there passes): throws the LocalFileError of one that
 * breaks it; tightens one readable by others, returning the warning to show.
 */
export function requirePrivate(path: string, kind: PathKind, label: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return undefined;
  const refusal = foreignPath(path, st, kind, label);
  if (refusal) throw refusal;
  const mode = st.mode & 0o777;
  if (mode & 0o077) {
    chmodSync(path, kind === 'folder' ? dirMode : fileMode);
    return `${path} was mode ${mode.toString(8)}; set it to ${kind === 'folder' ? '700' : '600'} since it holds ${label === 'config' ? 'credentials' : "mpay's records"}`;
  }
  return undefined;
}
