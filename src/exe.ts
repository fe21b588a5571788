// The entry of the single executable (`npm run build:exe`, docs/performance.md "The executable").
//
// scripts/build-exe.js bundles this file with everything it reaches into one CommonJS script, and Node
// runs it once, at build time, to take a V8 startup snapshot: the heap after mpay's modules have run and
// oclif's command table is loaded. A run of the executable starts from that heap and calls main() below.
//
// So the snapshot holds only what is the same on every machine and every run: code, the command table,
// help text, package metadata. Whatever a run must see for itself (the environment, the working folder,
// the home and config folders, the terminal, the clock, randomness) is read in main() or later, never at
// build time. oclif's Config reads most of these, so it is made in main(); only the root Plugin (the
// commands, topics and hooks read from package.json and the command classes) is built beforehand.
import { Plugin } from '@oclif/core/config';
import { execute } from '@oclif/core/execute';
import * as cliTable3 from 'cli-table3';
import createDebug from 'debug';
import v8 from 'node:v8';
import * as bundle from './execute.js';
import { writeFileAtomic } from './common/atomic-write.js';
// Modules the commands load on first use (src/factory.ts), run here so that the snapshot holds them
// evaluated: the client with got, the API's schemas, the config store, the journal, the reporter and the
// flows. The build's audit (checkBuildTimeReads) shows none of them reads the environment as it loads.
// got loads node:http, whose parser V8 cannot serialize; the build hands it a stand-in that loads the
// real module on first use, at run time (scripts/build-exe.js).
import './api/client.js';
import './api/schemas.js';
import './config/context.js';
import './config/store.js';
import './flows/payment/payment.js';
import './journal/journal.js';
import './ui/reporter.js';

// Given by scripts/build-exe.js: package.json (esbuild's define), the root oclif is told about (nothing
// is read from it), the packages kept as assets, and, from the banner, the require() Node handed the
// script and a way to replace it.
declare const MPAY_PJSON: Record<string, unknown> & { name: string; version: string };
declare const MPAY_ROOT: string;
declare const MPAY_EXTRAS: string[];
declare const MPAY_KEYRING_SHA256: string;
declare const MPAY_LIBSQL_SHA256: string;
declare const __builtinRequire: NodeJS.Require;
declare const installRequire: (r: unknown) => void;

// Packages that only some commands use (the sandbox's server, prompts, archives, CSV, JMESPath, the
// progress bar, conf's writes) are not in the snapshot: each is a script of its own among the
// executable's assets (scripts/build-exe.js), compiled the first time a command needs it. The snapshot
// stays small, and every run deserializes it, so that keeps every command's start-up short.
const extras = new Map<string, unknown>();

/** A package kept among the assets, by its name (its asset: the name with + for /, as build-exe names it). */
function loadExtra(pkg: string): unknown {
  if (extras.has(pkg)) return extras.get(pkg);
  const { getAsset, isSea } = __builtinRequire('node:sea') as typeof import('node:sea');
  // Run as a plain script (node dist/mpay-exe.cjs, in the repository) there are no assets.
  if (!isSea()) return __builtinRequire(pkg);
  const asset = `${pkg.replace('/', '+')}.cjs`;
  const source = getAsset(asset, 'utf8');
  const filename = `${MPAY_ROOT}/extras/${asset}`;
  const mod = { exports: {} as unknown };
  const { compileFunction } = __builtinRequire('node:vm') as typeof import('node:vm');
  const fn = compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], {
    filename,
  });
  fn(mod.exports, moduleRequire, mod, filename, `${MPAY_ROOT}/extras`);
  extras.set(pkg, mod.exports);
  return mod.exports;
}

/**
 * A native addon, an asset of the executable (@napi-rs/keyring's, libsql's): its bytes are checked against
 * the sha256 built in, written once to a private folder (0700, the file 0600, through an exclusive
 * temporary file) and loaded from there, after the file there was checked against the same sha256. A file
 * of another user, a link, or one that another user could write is never loaded: it is replaced.
 */
function loadAddon(id: string, name: string, sha256: string): unknown {
  if (extras.has(id)) return extras.get(id);
  const { getAsset, isSea } = __builtinRequire('node:sea') as typeof import('node:sea');
  if (!isSea()) return __builtinRequire(id);
  const { createHash } = __builtinRequire('node:crypto') as typeof import('node:crypto');
  const fs = __builtinRequire('node:fs') as typeof import('node:fs');
  const { join } = __builtinRequire('node:path') as typeof import('node:path');
  const { homedir } = __builtinRequire('node:os') as typeof import('node:os');
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const env = process.env;
  const base = env.XDG_CACHE_HOME
    ? join(env.XDG_CACHE_HOME, 'mpay')
    : process.platform === 'darwin'
      ? join(homedir(), 'Library', 'Caches', 'mpay')
      : process.platform === 'win32'
        ? join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'mpay', 'Cache')
        : join(homedir(), '.cache', 'mpay');
  const dir = join(base, 'native');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const own = (path: string, folder: boolean) => {
    if (process.platform === 'win32') return true;
    const st = fs.lstatSync(path);
    const uid = process.getuid!();
    return (
      (folder ? st.isDirectory() : st.isFile()) && (st.uid === uid || st.uid === 0) && (st.mode & 0o022) === 0
    );
  };
  if (!own(dir, true))
    throw new Error(`${dir} is not a private folder of this user: the ${name} addon is not loaded`);
  const file = join(dir, `${name}-${sha256.slice(0, 16)}.node`);
  let good = false;
  try {
    good = own(file, false) && sha(fs.readFileSync(file)) === sha256;
  } catch {
    good = false;
  }
  if (!good) {
    // The copy is made from the executable's own asset, itself checked against the same sha256.
    const bytes = new Uint8Array(getAsset(`${name}.node`));
    if (sha(bytes) !== sha256)
      throw new Error(`the ${name} addon inside this executable does not match its sha256`);
    writeFileAtomic(file, bytes);
  }
  const mod = { exports: {} as unknown };
  process.dlopen(mod as { exports: object }, file);
  extras.set(id, mod.exports);
  return mod.exports;
}

const target = /[\\/]dist[\\/]mpay\.cjs$/;

/**
 * The require() the bundle and the extras see. The snapshot builder and the executable give the script
 * one that knows only Node's built-in modules (__builtinRequire); oclif also requires package.json's
 * targets (dist/mpay.cjs), which are this bundle's own exports.
 */
function moduleRequire(id: string): unknown {
  if (target.test(id)) return bundle;
  if (MPAY_EXTRAS.includes(id)) return loadExtra(id);
  if (id === '@napi-rs/keyring') return loadAddon(id, 'keyring', MPAY_KEYRING_SHA256);
  // libsql's JS (an extra) requires its binary by the platform's name (@libsql/linux-x64-gnu): the one
  // this executable carries, built for the platform it runs on
  if (id.startsWith('@libsql/')) return loadAddon('@libsql/', 'libsql', MPAY_LIBSQL_SHA256);
  return __builtinRequire(id);
}
moduleRequire.resolve = (id: string): string => {
  if (target.test(id)) return id;
  throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
};
moduleRequire.cache = Object.create(null) as Record<string, unknown>;
installRequire(moduleRequire);

// Left out of the npm-installed bundle but small and used by every table: part of the snapshot.
const inSnapshot: Record<string, unknown> = { 'cli-table3': cliTable3 };

// src/lazy-import.ts's bridge: an import() of a package, as ESM sees a CommonJS module.
(globalThis as { __mpayImport?: (s: string) => Promise<unknown> }).__mpayImport = async (specifier) => {
  if (specifier in inSnapshot) return inSnapshot[specifier];
  const m = moduleRequire(specifier) as { __esModule?: boolean } | null;
  return m && m.__esModule ? m : { ...(m as object), default: m };
};

const root = new Plugin({ root: MPAY_ROOT, isRoot: true, pjson: MPAY_PJSON as never, ignoreManifest: true });
const loaded = root.load();

/** `mpay --version` as bin/run.js answers it, without oclif's Config. */
function version(): string {
  return `${MPAY_PJSON.name}/${MPAY_PJSON.version} ${process.platform}-${process.arch} node-${process.version}\n`;
}

/** argv after the program: an executable repeats its own path as argv[1]; `node --snapshot-blob` does not. */
async function main(skip: number): Promise<void> {
  const argv = process.argv.slice(skip);
  // The keyring's child process (src/config/keyring.ts) is this executable again.
  if (process.env.MPAY_KEYRING_CHILD === '1') return bundle.keyringChild(process.stdin, process.stdout);
  const { isSea } = __builtinRequire('node:sea') as typeof import('node:sea');
  (globalThis as { __mpayKeyringChild?: string[] }).__mpayKeyringChild = isSea()
    ? [process.execPath]
    : [process.execPath, process.argv[1]!];
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(version());
    return;
  }
  await loaded;
  createDebug.enable(process.env.DEBUG ?? '');
  await execute({
    args: bundle.argvFor(argv),
    loadOptions: { root: MPAY_ROOT, pjson: MPAY_PJSON as never, plugins: new Map([[root.name, root]]) },
  });
}

// The environment variables (and terminal checks) that modules read as they load, each with why the
// value seen at build time does not reach a run, or does not matter. Building fails on any other
// (checkBuildTimeReads).
const buildTimeReads: Record<string, string> = {
  DEBUG: "the debug package enables its namespaces once; main() applies the run's DEBUG",
  OCLIF_COLUMNS: "oclif's screen.js runs again when the snapshot is restored (scripts/build-exe.js)",
  TERM_PROGRAM:
    "ansi-escapes' cursor codes for Apple Terminal, used only by oclif's spinner, which mpay never shows",
  NODE_ENV: "oclif's development mode while the command table loads; a run's Config reads it again",
  __MINIMATCH_TESTING_PLATFORM__: "minimatch's switch for its own tests",
  TINYGLOBBY_DEBUG: "tinyglobby's debug switch",
  CLI_FLAGS_DEBUG: "oclif's parser debug switch",
  '(isatty 2)':
    "debug's choice of colour for its own lines (shown only with DEBUG), made as each logger is created",
};

async function checkBuildTimeReads(): Promise<void> {
  await loaded;
  const reads = (globalThis as { __mpayEnvReads?: Map<string, string> }).__mpayEnvReads ?? new Map();
  const unexpected = [...reads].filter(([k]) => !(k in buildTimeReads));
  if (unexpected.length === 0) return;
  for (const [k, where] of unexpected)
    process.stderr.write(`build-exe: ${k} was read while building the snapshot\n${where}\n`);
  process.exitCode = 1;
}

if (v8.startupSnapshot?.isBuildingSnapshot()) {
  void checkBuildTimeReads();
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    const { isSea } = __builtinRequire('node:sea') as typeof import('node:sea');
    void main(isSea() ? 2 : 1);
  });
} else {
  // Run as a plain script (node dist/mpay-exe.cjs): the same program without a snapshot.
  void main(2);
}
