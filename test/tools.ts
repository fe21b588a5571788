// The programs a few tests run besides mpay and Node: tmux (a real terminal) and a Secret Service of their
// own on a private D-Bus session. Where one is missing, its tests are skipped on a developer's machine, and
// `bash .ci/run` names them and what to install; with CI=true they are never skipped (they run, and fail),
// and .ci/run installs the packages before any test or fails.
import { spawnSync } from 'node:child_process';

const found = new Map<string, boolean>();

/** The ones of these programs that are not on PATH. */
export function missing(...tools: string[]): string[] {
  return tools.filter((t) => {
    if (!found.has(t)) found.set(t, spawnSync('sh', ['-c', 'command -v "$1"', 'sh', t]).status === 0);
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
