// The programs a few tests run besides mpay and Node: tmux (a real terminal) and a Secret Service of their
// own on a private D-Bus session. Where one is missing, its tests are skipped on a developer's machine, and
// `bash .ci/run` names them and what to install; with CI=true they are never skipped (they run, and fail),
// and .ci/run installs the packages before any test or fails.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const found = new Map<string, boolean>();

/** Whether an executable file of this name is in one of PATH's folders, as `command -v` finds it. Read
 * without a shell, so that the quick tier, which starts no process, may ask it too. */
function onPath(tool: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    const p = join(dir || '.', tool);
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

/** The ones of these programs that are not on PATH. */
export function missing(...tools: string[]): string[] {
  return tools.filter((t) => {
    if (!found.has(t)) found.set(t, onPath(t));
    return !found.get(t);
  });
}

/**
 * Whether the tests that run these programs are skipped here: one is missing, and CI is not true. Each
 * test file names its programs in one call, `without('tmux')`, as .ci/run reads them.
 */
export function without(...tools: string[]): boolean {
  return missing(...tools).length > 0 && process.env.CI !== 'true';
}
