// Where mpay keeps its files (README, "Configuration"): $MPAY_CONFIG_DIR, else $XDG_CONFIG_HOME/mpay, else the
// platform's config folder. The folder is 0700 and every file in it 0600.
import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { LocalFileError } from '../api/errors.js';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  // Absolute and without a trailing slash: the keyring's entries are named by this folder, so one folder
  // named two ways (./mpay, mpay/) must be one name.
  if (env.MPAY_CONFIG_DIR) return resolve(env.MPAY_CONFIG_DIR);
  if (env.XDG_CONFIG_HOME) return resolve(env.XDG_CONFIG_HOME, 'mpay');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'mpay');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'mpay');
  return join(homedir(), '.config', 'mpay');
}

export const dirMode = 0o700;
export const fileMode = 0o600;

/**
 * Creates the folder with mode 0700, and tightens a looser one it finds (returning a warning), since
 * it holds credentials and tokens.
 */
export function ensurePrivateDir(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: dirMode });
  if (process.platform === 'win32') return undefined;
  refuseForeign(dir, 'folder');
  const mode = statSync(dir).mode & 0o777;
  if (mode & 0o077) {
    chmodSync(dir, dirMode);
    return `${dir} was mode ${mode.toString(8)}; set it to 700 since it holds credentials`;
  }
  return undefined;
}

/**
 * A folder or file of mpay's that another user owns could hold what that user wrote (another server's
 * base URL, to which the merchant key would go): refused, not tightened. Root may own them, as root can
 * write anything anyway.
 */
function refuseForeign(path: string, what: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const st = lstatSync(path);
  if (st.isSymbolicLink() || (st.uid !== uid && st.uid !== 0))
    throw new LocalFileError(
      `The config ${what} ${path} ${st.isSymbolicLink() ? 'is a link' : `belongs to another user (uid ${st.uid})`}; mpay will not read or write it`,
      { hint: 'Use a config folder of your own (MPAY_CONFIG_DIR), or take this one over (chown)' },
    );
}

/** Tightens a file found readable by others (returning a warning). */
export function ensurePrivateFile(file: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
  refuseForeign(file, 'file');
  if (mode & 0o077) {
    chmodSync(file, fileMode);
    return `${file} was mode ${mode.toString(8)}; set it to 600 since it holds credentials`;
  }
  return undefined;
}
