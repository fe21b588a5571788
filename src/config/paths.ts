// Where mpay keeps its files (README, "Configuration"): $MPAY_CONFIG_DIR, else $XDG_CONFIG_HOME/mpay, else the
// platform's config folder. The folder is 0700 and every file in it 0600.
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MPAY_CONFIG_DIR) return env.MPAY_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'mpay');
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
  const mode = statSync(dir).mode & 0o777;
  if (mode & 0o077) {
    chmodSync(dir, dirMode);
    return `${dir} was mode ${mode.toString(8)}; set it to 700 since it holds credentials`;
  }
  return undefined;
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
  if (mode & 0o077) {
    chmodSync(file, fileMode);
    return `${file} was mode ${mode.toString(8)}; set it to 600 since it holds credentials`;
  }
  return undefined;
}
