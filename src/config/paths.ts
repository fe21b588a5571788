// Where mpay keeps its files (README, "Configuration"): $MPAY_CONFIG_DIR, else $XDG_CONFIG_HOME/mpay, else the
// platform's config folder. The folder is 0700 and every file in it 0600.
import { mkdirSync } from 'node:fs';
import { dirMode, requirePrivate } from '../common/private-path.js';
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

export { dirMode, fileMode } from '../common/private-path.js';

/**
 * Creates the folder with mode 0700, and tightens a looser one it finds (returning a warning), since
 * it holds credentials and tokens; one of another user's, a link, or one others can write is refused
 * (common/private-path.ts, the rule of every folder mpay keeps).
 */
export function ensurePrivateDir(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: dirMode });
  return requirePrivate(dir, 'folder', 'config');
}

/** Tightens a file found readable by others (returning a warning); refuses one that breaks the rule. */
export function ensurePrivateFile(file: string): string | undefined {
  return requirePrivate(file, 'file', 'config');
}
