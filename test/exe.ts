// The single executable the tests run (test/portable.process.test.ts, test/journal-scale.process.test.ts,
// test/keyring.process.test.ts): built by the first test file of a worker that asks for it, while the other
// files run, rather than before every test (test/global-setup.ts). scripts/build-exe.js keeps the one in
// dist/ when nothing it is built from changed, and builds one at a time across workers (its lock).
//
// It is built with values planted in its build's environment and working folder (buildTime), which
// test/portable.process.test.ts shows a run never sees.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diesWithWorker, root } from './helpers.js';

export const buildTime = {
  host: 'build-time.invalid',
  cwd: join(root, '.cache', 'exe-build-cwd'),
};

export const exePath = join(root, 'dist', `mpay-${process.platform}-${process.arch}`);

let built: Promise<string> | undefined;

/** The path of dist/mpay-<platform>-<arch>, built (or found up to date) once a worker. */
export function builtExe(): Promise<string> {
  built ??= new Promise<string>((resolve, reject) => {
    mkdirSync(buildTime.cwd, { recursive: true });
    // the kernel ends the build with this worker, however the worker ends
    const [cmd, args] = diesWithWorker([process.execPath, join(root, 'scripts', 'build-exe.js')]);
    const child = spawn(cmd, args, {
      cwd: buildTime.cwd,
      env: { ...process.env, MPAY_BASE_URL: `http://${buildTime.host}`, OCLIF_COLUMNS: '40' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      code === 0 ? resolve(exePath) : reject(new Error(`build-exe exited ${code ?? signal}:\n${err}`)),
    );
  });
  // handled by whoever awaits it; a file that starts the build early and fails first is not an
  // unhandled rejection
  built.catch(() => {});
  return built;
}
