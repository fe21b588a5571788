// Makes the V8 code cache of dist/mpay.cjs (named after the bundle's hash and the Node version) at build time, from a run that goes through oclif, a command, got and the
// error path (it calls a port where nothing listens), so that the first real run is already fast.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mpay-warm-'));
const r = spawnSync(
  process.execPath,
  [bin, 'countries', '--json', '--base-url', 'http://127.0.0.1:9', '--timeout', '1'],
  {
    env: { ...process.env, MPAY_CONFIG_DIR: dir, MPAY_RETRY_BASE_MS: '1' },
    encoding: 'utf8',
  },
);
rmSync(dir, { recursive: true, force: true });
// Exit 8 (network) is the expected outcome; anything else means the bundle is broken.
if (r.status !== 8) {
  console.error(`warm-cache: expected exit 8 from a refused connection, got ${r.status}\n${r.stderr}`);
  process.exit(1);
}
console.error('warm-cache: V8 code cache of dist/mpay.cjs written');
