// npm run build:exe: one file, dist/mpay-<platform>-<arch>, that runs every command with no Node and no
// node_modules beside it (docs/performance.md "The executable"). It is a Node single executable
// application whose blob holds a V8 startup snapshot taken after src/exe.ts has loaded mpay:
//   1. esbuild bundles src/exe.ts with every package it reaches into dist/mpay-exe.cjs;
//   2. `node --experimental-sea-config` runs that script once to take the snapshot, into a blob;
//   3. a copy of this Node binary gets the blob injected (postject), and is the executable.
//
//   node scripts/build-exe.js [--node PATH] [--no-minify] [--force]
// --node: the Node binary to copy and to build with (by default Node 22, from scripts/node-runtimes.js).
// --force: build it anew even when dist/ holds one built from the same inputs (see buildKey below).
// One build at a time: a second (another test worker, another terminal) waits for the first, then finds
// the executable built (dist/mpay-exe.lock).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { lazyListFormat, lazyPackages, stubGotUnused } from './bundle-config.js';
import { exeRuntime, installRuntimes } from './node-runtimes.js';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const { values } = parseArgs({
  options: { node: { type: 'string' }, 'no-minify': { type: 'boolean' }, force: { type: 'boolean' } },
});
// Node 20 reached its end of life in April 2026, and Node 22 and 24 start in less than half its time
// here (docs/performance.md), so the executable carries an LTS Node from the npm registry
// (scripts/node-runtimes.js: exeRuntime) unless told otherwise.
const node = values.node ?? runtimeOrExit();

function runtimeOrExit(opts) {
  try {
    return installRuntimes(opts)[exeRuntime];
  } catch (err) {
    console.error(`build-exe: ${err.message}`);
    process.exit(1);
  }
}
const platform = process.platform === 'win32' ? 'win' : process.platform;
const exe = join(dist, `mpay-${platform}-${process.arch}${platform === 'win' ? '.exe' : ''}`);
const script = join(dist, 'mpay-exe.cjs');
const blob = join(dist, 'mpay-exe.blob');

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// What oclif reads of package.json. Plugins installed beside mpay (autocomplete) are not part of the
// executable, so the list is dropped.
const pjson = {
  name: pkg.name,
  version: pkg.version,
  type: 'commonjs',
  oclif: { ...pkg.oclif, plugins: [] },
};
// The root oclif sees. Nothing is read from it: the banner below answers oclif's require of the
// package.json targets, and the command table comes from the bundle, not from a manifest file.
const virtualRoot = '/$mpay';

// Modules that read the environment or the terminal as they load. The snapshot would keep what they
// saw at build time, so (docs/performance.md "What the snapshot holds"):
//  - ansis and supports-color (oclif's colours) decide colour support once, when they load; node:http
//    and node:https hold a parser V8 cannot serialize, and hpagent extends http.Agent as it loads. Each
//    is replaced by a stand-in that loads the real module on first use, after the snapshot is restored,
//    so that got and the client around it can be part of the snapshot. Using one while building fails
//    the build.
//  - @sindresorhus/is makes ICU objects as it loads, which V8 cannot serialize: made on first use
//    (lazyListFormat, scripts/bundle-config.js, which bin/run.js's bundle uses too).
//  - oclif's screen.js reads the terminal's width (and OCLIF_COLUMNS) once: its body runs again when
//    the snapshot is restored (v8.startupSnapshot.addDeserializeCallback).
// The build also records every environment variable read while it runs and fails on any not listed in
// buildTimeReads (below), so a new dependency that does the same is caught.
const deferred = /^(ansis|supports-color|hpagent|(node:)?(https?|tls))$/;
// Functions of a deferred module that are read long before they are called, or never called: the stand-in
// hands out a function that loads the module when it is called. got reads node:tls's checkServerIdentity
// for the options of every request, https or not: without this a request to an http:// URL (a sandbox on
// loopback) loaded TLS and Node 22's certificate store, about 5 ms of CPU (measured).
const calledLater = { 'node:tls': ['checkServerIdentity'] };
const runTimeState = {
  name: 'run-time-state',
  setup(b) {
    b.onResolve({ filter: deferred }, async (args) => {
      const builtin = /^(node:)?(https?|tls)$/.test(args.path);
      // the stand-in's own require() of the real module
      if (args.namespace === 'deferred') return builtin ? { path: args.path, external: true } : undefined;
      const path = builtin
        ? `node:${args.path.replace(/^node:/, '')}`
        : (
            await b.resolve(args.path, {
              resolveDir: args.resolveDir,
              kind: args.kind,
              namespace: 'deferred',
            })
          ).path;
      // a .cjs name: the stand-in is CommonJS whatever the real module is
      return { path: `${path}.deferred.cjs`, namespace: 'deferred', pluginData: { real: path } };
    });
    b.onLoad({ filter: /.*/, namespace: 'deferred' }, async (args) => {
      const real = args.pluginData.real;
      // The module's names, taken from it here, so that esbuild's import interop can copy them as getters.
      const mod = await import(real.startsWith('node:') ? real : pathToFileURL(real).href);
      const names = Object.keys(mod).filter((n) => n !== 'default' && n !== 'length' && n !== 'name');
      return {
        resolveDir: root,
        loader: 'js',
        contents: `let real;
const { startupSnapshot } = require('node:v8');
const names = ${JSON.stringify(names)};
const calledLater = ${JSON.stringify(calledLater[real] ?? [])};
const later = {};
function load() {
  if (real) return real;
  if (startupSnapshot?.isBuildingSnapshot()) throw new Error('build-exe: ' + ${JSON.stringify(real)} + ' was used while building the snapshot');
  return (real = require(${JSON.stringify(real)}));
}
module.exports = new Proxy(function () {}, {
  get: (t, k) =>
    k === '__esModule'
      ? false
      : k === 'prototype'
        ? t.prototype
        : !real && calledLater.includes(k)
          ? (later[k] ??= function (...a) { return load()[k].apply(this, a); })
          : load()[k],
  has: (_, k) => names.includes(k),
  ownKeys: (t) => [...names, ...Reflect.ownKeys(t)],
  getOwnPropertyDescriptor: (t, k) =>
    names.includes(k) ? { configurable: true, enumerable: true, get: () => load()[k] } : Reflect.getOwnPropertyDescriptor(t, k),
  apply: (_, self, a) => load().apply(self, a),
});`,
      };
    });
    b.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/]screen\.js$/ }, async (args) => ({
      loader: 'js',
      contents: `function init() {
${await readFile(args.path, 'utf8')}
}
init();
const { startupSnapshot } = require('node:v8');
if (startupSnapshot?.isBuildingSnapshot()) startupSnapshot.addDeserializeCallback(init);`,
    }));
  },
};

// Packages only some commands use: each is bundled on its own and kept among the executable's assets,
// outside the snapshot that every run deserializes (src/exe.ts). cli-table3 stays in: every table uses it.
const extras = lazyPackages.filter((p) => p !== 'cli-table3' && p !== '@napi-rs/keyring');

// The keyring's native addon (@napi-rs/keyring's prebuilt binary for this platform) is an asset too, with
// its sha256 built into the script: src/exe.ts checks the bytes against it before it writes them to the
// user's private cache folder and loads them, and again each time it loads them from there.
const keyringAddon = findKeyringAddon();
const keyringSha256 = createHash('sha256').update(readFileSync(keyringAddon)).digest('hex');

function findKeyringAddon() {
  const scope = join(root, 'node_modules', '@napi-rs');
  const prefix = `keyring-${process.platform}-${process.arch}`;
  for (const d of readdirSync(scope).filter((n) => n.startsWith(prefix))) {
    const node = readdirSync(join(scope, d)).find((f) => f.endsWith('.node'));
    if (node) return join(scope, d, node);
  }
  throw new Error(`build-exe: no @napi-rs/${prefix}* package with a .node file in node_modules`);
}

// SQLite's native addon (libsql's prebuilt binary for this platform, @libsql/<target>/index.node), kept
// and checked as the keyring's is: the journal's commands load it from the same private cache folder.
const libsqlAddon = findLibsqlAddon();
const libsqlSha256 = createHash('sha256').update(readFileSync(libsqlAddon)).digest('hex');

function findLibsqlAddon() {
  const scope = join(root, 'node_modules', '@libsql');
  const prefix = `${process.platform}-${process.arch}`;
  // glibc's first: libsql itself picks -gnu over -musl on a glibc system
  for (const d of readdirSync(scope)
    .filter((n) => n.startsWith(prefix))
    .sort((a, b) => Number(b.endsWith('-gnu')) - Number(a.endsWith('-gnu')))) {
    if (existsSync(join(scope, d, 'index.node'))) return join(scope, d, 'index.node');
  }
  throw new Error(`build-exe: no @libsql/${prefix}* package with an index.node in node_modules`);
}
const assetName = (pkg) => `${pkg.replace('/', '+')}.cjs`;

// The snapshot builder and the executable hand the script a require() that knows only Node's built-in
// modules; src/exe.ts puts its own in place through installRequire.
// While the snapshot is built, process.env records which variables mpay's modules read, and where
// (src/exe.ts checks them against its list).
const banner = `var __builtinRequire = require; function installRequire(r) { require = r; }
if (require('node:v8').startupSnapshot?.isBuildingSnapshot()) {
  var __envReads = new Map();
  var __record = function (k) {
    if (typeof k !== 'string' || __envReads.has(k)) return;
    var had = 'stackTraceLimit' in Error, limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 10;
    var where = String(new Error().stack).split('\\n').slice(3, 7);
    if (had) Error.stackTraceLimit = limit; else delete Error.stackTraceLimit;
    // Node's own reads (its console colouring the build's warnings) are not part of the heap mpay keeps.
    if (!/node:internal/.test(where[0])) __envReads.set(k, where.join('\\n'));
  };
  var __realEnv = process.env;
  process.env = new Proxy(process.env, {
    get(t, k) { __record(k); return t[k]; },
    has(t, k) { __record(k); return k in t; },
  });
  // Whether a stream is a terminal, asked while building, would be the build's answer.
  var __tty = require('node:tty'), __isatty = __tty.isatty;
  __tty.isatty = function (fd) { if (require('node:v8').startupSnapshot.isBuildingSnapshot()) __record('(isatty ' + fd + ')'); return __isatty(fd); };
  // The recording ends with the build: the snapshot keeps the real process.env and isatty, and not the
  // record (its stack lines hold the build's paths).
  require('node:v8').startupSnapshot.addSerializeCallback(function () { process.env = __realEnv; __tty.isatty = __isatty; __envReads.clear(); delete globalThis.__mpayEnvReads; });
  globalThis.__mpayEnvReads = __envReads;
}`;

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // --no-minify keeps names, for reading a CPU profile
  minify: !values['no-minify'],
  logLevel: 'warning',
  plugins: [stubGotUnused, lazyListFormat, runTimeState],
  // oclif requires these only to run TypeScript sources in development.
  external: ['typescript', 'ts-node'],
};

const t0 = Date.now();
mkdirSync(dist, { recursive: true });
await holdBuildLock();

// Before any bundling: the executable in dist/ was built from these very sources, packages, Node and
// settings (dist/mpay-exe.inputs, written with it), so nothing is built again, not even the bundle
// whose bytes buildKey() below compares. A package changed by hand inside node_modules, without npm,
// is not seen here: --force builds anew.
const inputsFile = join(dist, 'mpay-exe.inputs');
const inputs = inputsKey();
if (
  !values.force &&
  existsSync(exe) &&
  existsSync(join(dist, 'mpay-exe.key')) &&
  existsSync(inputsFile) &&
  readFileSync(inputsFile, 'utf8') === inputs
) {
  console.error(`build-exe: ${exe} kept: its sources, packages, Node and settings are unchanged`);
  process.exit(0);
}
rmSync(inputsFile, { force: true });

/** The sha256 of what the executable is built from, read before anything is built. */
function inputsKey() {
  const h = createHash('sha256');
  const add = (file) => {
    h.update(`${file}\0`);
    h.update(existsSync(file) ? readFileSync(file) : '(none)');
    h.update('\0');
  };
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1)))
      if (e.isDirectory()) walk(join(dir, e.name));
      else add(join(dir, e.name));
  };
  walk(join(root, 'src'));
  for (const f of ['build-exe.js', 'bundle-config.js', 'node-runtimes.js']) add(join(root, 'scripts', f));
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'node_modules/.package-lock.json'])
    add(join(root, f));
  add(keyringAddon);
  add(libsqlAddon);
  const nodeStat = statSync(node);
  h.update(
    JSON.stringify({
      node: { path: node, size: nodeStat.size, mtime: nodeStat.mtimeMs },
      cwd: process.cwd(),
      minify: !values['no-minify'],
      env: Object.fromEntries(buildTimeNames().map((n) => [n, process.env[n] ?? null])),
    }),
  );
  return h.digest('hex');
}

/**
 * Takes dist/mpay-exe.lock (a folder: made or not, at once), waiting while another build holds it; a lock
 * whose process is gone is taken over. Released when this process exits, however it exits.
 */
async function holdBuildLock() {
  const lock = join(dist, 'mpay-exe.lock');
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      process.on('exit', () => rmSync(lock, { recursive: true, force: true }));
      for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
        process.once(sig, () => {
          rmSync(lock, { recursive: true, force: true });
          process.kill(process.pid, sig);
        });
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    } catch {
      // made, its pid not yet written
    }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      console.error(`build-exe: ${lock} held for 10 minutes (pid ${holder}); remove it if no build runs`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

await build({
  ...common,
  entryPoints: [join(root, 'src', 'exe.ts')],
  outfile: script,
  banner: { js: banner },
  define: {
    MPAY_PJSON: JSON.stringify(pjson),
    MPAY_ROOT: JSON.stringify(virtualRoot),
    MPAY_EXTRAS: JSON.stringify(extras),
    MPAY_KEYRING_SHA256: JSON.stringify(keyringSha256),
    MPAY_LIBSQL_SHA256: JSON.stringify(libsqlSha256),
  },
  external: [...common.external, ...extras],
});
console.error(`build-exe: ${script} ${(statSync(script).size / 1024).toFixed(0)} KiB`);
const assets = { 'keyring.node': keyringAddon, 'libsql.node': libsqlAddon };
for (const pkg of extras) {
  const file = join(dist, 'extras', assetName(pkg));
  await build({
    ...common,
    stdin: { contents: `module.exports = require(${JSON.stringify(pkg)});`, resolveDir: root },
    outfile: file,
    // ajv is an extra of its own (mpay proxy) and also inside fastify's, which requires its subpaths
    // (ajv/dist/jtd): an extra is found by its name only, so fastify's keeps its own copy.
    // libsql requires its binary by the platform's name (@libsql/linux-x64-gnu): src/exe.ts answers it
    external: [...common.external, ...extras.filter((e) => e !== pkg && e !== 'ajv'), '@libsql/*'],
  });
  assets[assetName(pkg)] = file;
}

// The snapshot and the injection are most of a build's time: they are skipped when their inputs are
// those of the executable already in dist/ (its key, in dist/mpay-exe.key), so that the test run's
// global setup rebuilds it only when something it holds changed. The key is of what the snapshot is
// taken from: the bundle and every asset byte for byte, the Node binary, the build's folder, and the
// variables the snapshot may read as it is built (src/exe.ts, buildTimeReads; any other fails the build).
const keyFile = join(dist, 'mpay-exe.key');
const key = buildKey();
if (!values.force && existsSync(exe) && existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key) {
  writeFileSync(inputsFile, inputs);
  console.error(
    `build-exe: ${exe} kept: built from the same bundle, assets, Node and settings (--force builds anew)`,
  );
  process.exit(0);
}
// The runtime's bytes checked against their pin again, whatever an earlier check recorded, before they
// become the executable's (scripts/node-runtimes.js).
if (!values.node) runtimeOrExit({ full: true });
rmSync(keyFile, { force: true });

/** The variables the snapshot may read as it is built (src/exe.ts, buildTimeReads). */
function buildTimeNames() {
  const reads = readFileSync(join(root, 'src', 'exe.ts'), 'utf8').match(/const buildTimeReads[^]*?\n};/);
  if (!reads) throw new Error('build-exe: no buildTimeReads in src/exe.ts');
  return [...reads[0].matchAll(/^ {2}'?([A-Za-z_][A-Za-z0-9_]*)'?:/gm)].map((m) => m[1]);
}

function buildKey() {
  const sha = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
  const names = buildTimeNames();
  const nodeStat = statSync(node);
  return JSON.stringify({
    script: sha(script),
    assets: Object.fromEntries(Object.entries(assets).map(([name, file]) => [name, sha(file)])),
    node: { path: node, size: nodeStat.size, mtime: nodeStat.mtimeMs },
    cwd: process.cwd(),
    minify: !values['no-minify'],
    env: Object.fromEntries(names.map((n) => [n, process.env[n] ?? null])),
  });
}

const seaConfig = join(dist, 'mpay-exe.sea.json');
writeFileSync(
  seaConfig,
  JSON.stringify({
    main: script,
    output: blob,
    disableExperimentalSEAWarning: true,
    useSnapshot: true,
    assets,
  }),
);
run(node, ['--experimental-sea-config', seaConfig]);
rmSync(exe, { force: true });
copyFileSync(node, exe);
chmodSync(exe, 0o755);
run(process.execPath, [
  join(root, 'node_modules', 'postject', 'dist', 'cli.js'),
  exe,
  'NODE_SEA_BLOB',
  blob,
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
]);
rmSync(seaConfig);
writeFileSync(keyFile, key);
writeFileSync(inputsFile, inputs);
console.error(
  `build-exe: ${exe} ${(statSync(exe).size / 1024 / 1024).toFixed(1)} MiB (blob ${(statSync(blob).size / 1024 / 1024).toFixed(1)} MiB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);

/** Runs a step quietly; its output is shown when it fails. */
function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    console.error(`build-exe: ${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
  // Node warns of each built-in module it has not verified in a snapshot (docs/performance.md).
  const unverified = [...r.stderr.matchAll(/built-in module "([^"]+)" works in user snapshot/g)].map(
    (m) => m[1],
  );
  if (unverified.length)
    console.error(
      `build-exe: loaded while building, not verified by Node in snapshots: ${unverified.join(', ')}`,
    );
}
