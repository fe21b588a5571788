// Before any test runs:
//   - build the bundle that bin/run.js loads (dist/mpay.cjs, the oclif manifest, the V8 code cache), so
//     that a test which spawns the CLI never runs code older than the sources;
//   - build the single executable (npm run build:exe) with values planted in its build's environment and
//     working folder (buildTime), which test/portable.test.ts shows a run never sees;
//   - install the other Node versions the end-to-end set runs on, and the executable is built with
//     (scripts/node-runtimes.js).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installRuntimes } from '../scripts/node-runtimes.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export const buildTime = {
  host: 'build-time.invalid',
  cwd: join(root, '.cache', 'exe-build-cwd'),
};

export default function setup(): void {
  for (const script of ['bundle.js', 'manifest.js', 'warm-cache.js'])
    execFileSync(process.execPath, [join(root, 'scripts', script)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  // first: the executable is built with one of them
  installRuntimes();
  mkdirSync(buildTime.cwd, { recursive: true });
  execFileSync(process.execPath, [join(root, 'scripts', 'build-exe.js')], {
    cwd: buildTime.cwd,
    env: { ...process.env, MPAY_BASE_URL: `http://${buildTime.host}`, OCLIF_COLUMNS: '40' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
