// The Node versions mpay is tested on besides the one running the tests: the current LTS lines, taken
// from the npm registry's `node` package (its install script fetches the matching node-<os>-<arch>
// package, a binary inside a registry package). Each is installed once into a per-user cache folder,
// outside any clone, as npm keeps its own: $XDG_CACHE_HOME/mpay-dev/node-runtimes/<version>-<os>-<arch>
// (~/.cache when XDG_CACHE_HOME is unset), and reused by every clone and worktree of the user. A binary
// is checked against its pinned sha256 when it is installed, and again whenever the file is not the one
// checked then (another inode, size or time); `engines` in package.json names the same lines. The single
// executable is built with one of them (exeRuntime).
//
//   node scripts/node-runtimes.js        installs what is missing and prints {"22": "/path/to/node", ...}
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const runtimes = { 22: '22.23.3', 24: '24.21.0' };
/**
 * The Node inside the single executable (scripts/build-exe.js): Node 22, an LTS line until April 2027. It
 * starts as fast as Node 24 here, and the executable built with it peaks 8 MB lower in RSS (67 against
 * 75 MB for countries --json; docs/performance.md).
 */
export const exeRuntime = '22';

// The sha256 of each runtime's node binary as first installed here (2026-11-22). npm checks each package
// against the registry's integrity; this also refuses a binary that differs from the one tested, should
// the registry ever serve other bytes for the same version. Other platforms are not pinned yet.
const pinned = {
  'linux-x64': {
    22: 'fde6a4bf8d0562f7751d1a2d6cb9b417c4cfe107bbcb0aa3e9a24e125e348f48',
    24: '7fde7b8afa198da66257f42ee2001d874c7355631e6d1579a5fb5ef1f246df4c',
  },
};

/** The per-user folder the runtimes are kept in (shared by every clone). */
export function runtimesDir() {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'mpay-dev', 'node-runtimes');
}

const binOf = (dir) => join(dir, 'node_modules', 'node', 'bin', 'node');
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
/** What identifies the file a check was made of: a new inode, size or time is checked again. */
const fileId = (file) => {
  const st = statSync(file);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
};

/**
 * Whether the binary is the pinned one and reports its version. With `full`, the bytes are hashed whatever
 * the record says (scripts/build-exe.js, before it copies the binary into the executable).
 */
function checked(major, version, dir, { full = false } = {}) {
  const bin = binOf(dir);
  if (!existsSync(bin)) return false;
  const record = join(dir, 'checked.json');
  const want = pinned[`${process.platform}-${process.arch}`]?.[major];
  let seen;
  try {
    seen = JSON.parse(readFileSync(record, 'utf8'));
  } catch {
    seen = undefined;
  }
  if (!full && seen?.file === fileId(bin) && seen.sha256 === (want ?? seen.sha256)) return true;
  const got = sha256(bin);
  if (want && got !== want)
    throw new Error(
      `The node binary installed for Node ${major} (${bin}) has sha256 ${got}, not the pinned ${want}: removed.`,
    );
  if (spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim() !== `v${version}`) return false;
  writeFileSync(record, JSON.stringify({ file: fileId(bin), sha256: got }));
  return true;
}

/**
 * The path of each runtime's node binary, installing those that are missing. Each is installed into a
 * folder of its own and renamed into place once checked, so that clones and test workers installing at
 * once never see half of one. `full`: hash every binary, whatever the record of an earlier check says.
 */
export function installRuntimes({ full = false } = {}) {
  const paths = {};
  const base = runtimesDir();
  for (const [major, version] of Object.entries(runtimes)) {
    const dir = join(base, `${version}-${process.platform}-${process.arch}`);
    const bin = binOf(dir);
    let ok;
    try {
      ok = checked(major, version, dir, { full });
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    if (!ok) {
      const tmp = `${dir}.${process.pid}.${Date.now()}.partial`;
      mkdirSync(tmp, { recursive: true });
      try {
        install(version, tmp);
        if (!checked(major, version, tmp, { full: true }))
          throw new Error(`The node binary installed for Node ${major} does not report v${version}`);
        // Another process may have put its own in place meanwhile: that one is used.
        if (!checkedOrGone(major, version, dir)) {
          rmSync(dir, { recursive: true, force: true });
          try {
            renameSync(tmp, dir);
          } catch (err) {
            if (!existsSync(bin)) throw err;
          }
        }
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    paths[major] = bin;
  }
  return paths;
}

/** checked(), with a binary that fails its check removed rather than thrown about. */
function checkedOrGone(major, version, dir) {
  try {
    return checked(major, version, dir);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return false;
  }
}

function install(version, dir) {
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
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(installRuntimes()));
