// The Node versions mpay is tested on besides the one running the tests: the current LTS lines, taken
// from the npm registry's `node` package (its install script fetches the matching node-<os>-<arch>
// package, a binary inside a registry package). Each is installed once into .cache/node-runtimes/<major>
// and reused; `engines` in package.json names the same lines. The single executable is built with one
// of them (exeRuntime).
//
//   node scripts/node-runtimes.js        installs what is missing and prints {"22": "/path/to/node", ...}
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const runtimes = { 22: '22.23.3', 24: '24.21.0' };
/**
 * The Node inside the single executable (scripts/build-exe.js): Node 22, an LTS line until April 2027. It
 * starts as fast as Node 24 here, and the executable built with it peaks 8 MB lower in RSS (67 against
 * 75 MB for countries --json; docs/performance.md).
 */
export const exeRuntime = '22';

const root = fileURLToPath(new URL('..', import.meta.url));

// The sha256 of each runtime's node binary as first installed here (2026-11-22). npm checks each package
// against the registry's integrity; this also refuses a binary that differs from the one tested, should
// the registry ever serve other bytes for the same version. Other platforms are not pinned yet.
const pinned = {
  'linux-x64': {
    22: 'fde6a4bf8d0562f7751d1a2d6cb9b417c4cfe107bbcb0aa3e9a24e125e348f48',
    24: '7fde7b8afa198da66257f42ee2001d874c7355631e6d1579a5fb5ef1f246df4c',
  },
};

function checkPinned(major, bin, dir) {
  const want = pinned[`${process.platform}-${process.arch}`]?.[major];
  if (!want) return;
  const got = createHash('sha256').update(readFileSync(bin)).digest('hex');
  if (got === want) return;
  rmSync(dir, { recursive: true, force: true });
  throw new Error(
    `The node binary installed for Node ${major} has sha256 ${got}, not the pinned ${want}: removed.`,
  );
}

/** The path of each runtime's node binary, installing those that are missing. */
export function installRuntimes() {
  const paths = {};
  for (const [major, version] of Object.entries(runtimes)) {
    const dir = join(root, '.cache', 'node-runtimes', major);
    const bin = join(dir, 'node_modules', 'node', 'bin', 'node');
    if (
      !existsSync(bin) ||
      spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim() !== `v${version}`
    ) {
      mkdirSync(dir, { recursive: true });
      try {
        execFileSync(
          'npm',
          [
            'install',
            '--prefix',
            dir,
            '--no-save',
            '--no-audit',
            '--no-fund',
            '--loglevel=error',
            `node@${version}`,
          ],
          {
            stdio: ['ignore', 'ignore', 'inherit'],
            env: { ...process.env, npm_config_update_notifier: 'false' },
          },
        );
      } catch (err) {
        throw new Error(
          `Could not install node@${version} from the npm registry into ${dir} (${err.status ?? err.code}). Without the network, build with a Node you have: --node PATH.`,
        );
      }
      checkPinned(major, bin, dir);
    }
    paths[major] = bin;
  }
  return paths;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(installRuntimes()));
