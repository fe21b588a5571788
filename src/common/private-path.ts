// The one rule for every file and folder mpay keeps for itself (SECURITY.md): the config folder and its
// files, the journal folder, its files, index and lock folders, the spool of a batch from stdin, the
// sandbox's --data file. Such a path must be the user's own (or root's: root can write anything anyway),
// not a link, writable by no group and no other user, and a file of one name (no second hard link): else
// another user could have written what mpay would read (another server's base URL, records that say
// "done"), or could read what mpay writes there (the customers' data), and mpay refuses it, exit 9,
// naming the path and how to mend it, before anything is sent. One that others can only read is set back to 0700/0600, with a warning.
import { chmodSync, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { LocalFileError } from './errors.js';
import { singleQuoted } from './shell-words.js';

export const dirMode = 0o700;
export const fileMode = 0o600;

export type PathKind = 'folder' | 'file';

/** A path in a hint's command: single-quoted, so that it is pasted as one word whatever it holds. */
const q = singleQuoted;

/**
 * How to use one of one's own instead of another user's: a config folder of one's own for what lives in
 * it; for the sandbox's --data file (a file the user names, anywhere), another file.
 */
function ownInstead(label: string): string {
  return label.startsWith('sandbox')
    ? 'Pass a --data file of your own (a path that does not exist yet starts an empty sandbox)'
    : 'Use a config folder of your own (MPAY_CONFIG_DIR)';
}

/**
 * The hint for a link where mpay keeps a file or folder: when it points to one of this user's own, of
 * the right kind, moving that one into place keeps what it holds (a journal's history); removing the link
 * would start afresh.
 */
function linkHint(path: string, kind: PathKind): string {
  const uid = process.getuid?.();
  let target: string | undefined;
  try {
    target = realpathSync(path);
    const st = statSync(target);
    if ((kind === 'folder' ? !st.isDirectory() : !st.isFile()) || (st.uid !== uid && st.uid !== 0))
      target = undefined;
  } catch {
    target = undefined;
  }
  if (!target) return `Remove the link (rm ${q(path)}); mpay makes its own ${kind} there`;
  return `To keep what it holds, move the ${kind} it points to into its place: rm ${q(path)} && mv ${q(target)} ${q(path)} (removing the link alone would start an empty one)`;
}

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
  const mode = kind === 'folder' ? '700' : '600';
  if (st.isSymbolicLink())
    return new LocalFileError(`The ${what} is a link; mpay will not read or write through it`, {
      hint: linkHint(path, kind),
    });
  if (kind === 'folder' ? !st.isDirectory() : !st.isFile())
    return new LocalFileError(`The ${what} is not a ${kind}; mpay will not read or write it`, {
      hint: `Move it aside (mv ${q(path)} ${q(`${path}.aside`)})`,
    });
  if (st.uid !== uid && st.uid !== 0)
    return new LocalFileError(
      `The ${what} belongs to another user (uid ${st.uid}); mpay will not read or write it`,
      {
        hint: `${ownInstead(label)}, or take this one over as root (chown ${kind === 'folder' ? '-R ' : ''}${uid} ${q(path)}, then chmod ${mode} ${q(path)})`,
      },
    );
  if (st.mode & 0o022)
    return new LocalFileError(
      `The ${what} is writable by ${st.mode & 0o002 ? 'other users' : 'its group'} (mode ${(st.mode & 0o777).toString(8)}); mpay will not read or write it`,
      { hint: `Check what is in it, then: chmod ${mode} ${q(path)}` },
    );
  // Another name for the same file (a hard link, which may sit in a folder others can read or replace):
  // what mpay writes there would be written under that name too.
  if (kind === 'file' && st.nlink > 1)
    return new LocalFileError(
      `The ${what} has ${st.nlink} names (hard links); mpay will not read or write it`,
      {
        hint: `Find the others (find / -xdev -samefile ${q(path)}); give it a copy of its own: cp -p ${q(path)} ${q(`${path}.copy`)} && mv ${q(`${path}.copy`)} ${q(path)}`,
      },
    );
  return undefined;
}

/**
 * The folder of a file the user names (the sandbox's --data file): one every user can write, without the
 * sticky bit (a /tmp has it), lets another user replace the file or plant one in its place before mpay
 * reads it. Refused like a folder of mpay's that others can write (exit 9).
 */
export function requireSafeFolderOf(path: string, label: string): void {
  if (process.platform === 'win32' || process.getuid?.() === undefined) return;
  const dir = dirname(path);
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st || !(st.mode & 0o002) || st.mode & 0o1000) return;
  throw new LocalFileError(
    `The folder ${dir} of the ${label} file ${path} is writable by every user and has no sticky bit (mode ${(st.mode & 0o7777).toString(8)}): another user could replace the file; mpay will not read or write it`,
    {
      hint: `Keep the file in a folder of your own (mv ${q(path)} ~/), or close the folder: chmod o-w ${q(dir)} (or chmod +t ${q(dir)}, as /tmp has)`,
    },
  );
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
