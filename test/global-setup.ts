// Before any test runs: build the bundle that bin/run.js loads (dist/mpay.cjs, the oclif manifest, the
// V8 code cache), so that a test which spawns the CLI never runs code older than the sources.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const script of ['bundle.js', 'manifest.js', 'warm-cache.js'])
    execFileSync(process.execPath, [join(root, 'scripts', script)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
}
