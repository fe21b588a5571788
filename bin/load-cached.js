// Loads a CommonJS bundle with a V8 code cache: the compiled code of the functions a run used, so that
// the next run skips parsing and compiling them. This is what v8-compile-cache does for require(); Node
// 20 has no built-in module compile cache.
//
// V8 itself checks only the *length* of the source against a cache (and its own version and flags), so
// a same-length change to the bundle would run the old compiled code. The cache file's name therefore
// carries a sha256 of the bundle's text and the Node version and architecture: a cache made for other
// bytes or another Node is never even read. It lives beside the bundle when that folder is writable, else
// in the user's cache folder ($XDG_CACHE_HOME/mpay, or the platform's); where neither can be written mpay
// runs without one and never spends the time to build a cache it could not keep. MPAY_NO_CODE_CACHE=1
// loads the plain way.
//
// On Node 20 a script loaded from a code cache cannot run import() (its callback is lost), so the bundle
// imports the packages it leaves out through globalThis.__mpayImport, defined here (src/lazy-import.ts).
//
// A cache is compiled code that this process runs, so it is read, and Node's own cache folder used, only
// where no other user can have written it: the file and its folder belong to this user (or root), are not
// links, and are writable by no group and no other user. A folder that fails (a dist/ installed under
// umask 000, a shared XDG_CACHE_HOME) is passed over for the next place. Caches are written 0600 through
// an exclusive temporary file of a random name. MPAY_CODE_CACHE_DEBUG=1 says on stderr what was refused.
//
// Node 22 and later have a compile cache of their own (module.enableCompileCache): there the bundle is
// required the plain way with that cache on, in the same two places. Node keeps each version's entries
// in a folder of their own, and this loader's caches carry the Node version in their names and only
// ever replace caches of the same Node, so runs under several Node versions never undo each other.
'use strict';
const { isAscii } = require('node:buffer');
const { createHash, randomBytes } = require('node:crypto');
const {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} = require('node:fs');
const Module = require('node:module');
const { homedir } = require('node:os');
const { basename, dirname, join } = require('node:path');
const { fileURLToPath } = require('node:url');
const vm = require('node:vm');

/** Runs the CommonJS bundle at `file` (a path, or a file: URL) and returns its exports. */
function loadBundle(file, cached = true) {
  const filename = typeof file === 'string' ? file : fileURLToPath(file);
  const require = Module.createRequire(filename);
  if (!cached || process.env.MPAY_NO_CODE_CACHE === '1') return require(filename);
  const places = [dirname(filename), userCacheDir()].filter(Boolean);
  if (typeof Module.enableCompileCache === 'function') {
    // Node writes its cache folders and files with the umask's modes (0777 under umask 000): this process's
    // files are all private anyway, so the umask is made 077. Every folder and file already in the cache
    // must pass the same check as this loader's own caches, or the place is passed over.
    if (typeof process.getuid === 'function') process.umask(0o077);
    const dir = places.find(
      (d) => writable(d) && trusted(d) && trustedTree(join(d, 'node-compile-cache'), 3),
    );
    if (dir) Module.enableCompileCache(join(dir, 'node-compile-cache'));
    return require(filename);
  }
  globalThis.__mpayImport = (specifier) => import(specifier);
  // The bytes are hashed as read, and an ASCII file (scripts/bundle.js writes mpay's so) becomes a one-byte
  // string without decoding: about 3 ms less than reading it as UTF-8, which makes a two-byte string of it.
  const bytes = readFileSync(filename);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const name = cacheName(filename, bytes);
  let cachedData;
  for (const dir of places) {
    if (!exists(join(dir, name)) || !trusted(dir) || !trusted(join(dir, name))) continue;
    try {
      cachedData = readFileSync(join(dir, name));
      break;
    } catch {
      // not readable there
    }
  }
  const script = new vm.Script(Module.wrap(source), { filename, cachedData });
  // Registered before it runs, so that oclif's own require() of the bundle finds this same module.
  const mod = new Module(filename);
  mod.filename = filename;
  mod.paths = Module._nodeModulePaths(dirname(filename));
  require.cache[filename] = mod;
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, filename, dirname(filename));
  mod.loaded = true;
  if (!cachedData || script.cachedDataRejected) {
    const dir = places.find((d) => writable(d) && trusted(d));
    // At exit the cache holds the functions the run compiled too, not only the top level.
    if (dir) process.once('exit', () => writeCache(dir, name, filename, script));
  }
  return mod.exports;
}

/** mpay.cjs.<sha256 of the file's bytes, 16 hex>.<node version>-<arch>.v8cache */
function cacheName(filename, bytes) {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return `${basename(filename)}.${hash}.${process.version}-${process.arch}.v8cache`;
}

/** $XDG_CACHE_HOME/mpay, else the platform's cache folder for mpay. */
function userCacheDir(env = process.env) {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'mpay');
  const home = homedir();
  if (!home) return undefined;
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'mpay');
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'mpay', 'Cache');
  return join(home, '.cache', 'mpay');
}

/** Whether a cache could be kept in dir (made if missing): asked of the file system, nothing written. */
function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch (err) {
    if (err.code !== 'ENOENT') return false;
  }
  // A missing user cache folder is made only when its parent can take it.
  try {
    let parent = dirname(dir);
    for (;;) {
      try {
        accessSync(parent, constants.W_OK);
        break;
      } catch (err) {
        if (err.code !== 'ENOENT' || dirname(parent) === parent) return false;
        parent = dirname(parent);
      }
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return true;
  } catch {
    return false;
  }
}

function exists(path) {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether only this user (or root) can have written path: not a link, owned by this user or root, and
 * writable by no group and no other user. Where there are no user ids (Windows), the folder's own ACLs
 * decide, as they did.
 */
function trusted(path) {
  if (typeof process.getuid !== 'function') return true;
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return false;
  }
  const ok = !st.isSymbolicLink() && (st.uid === process.getuid() || st.uid === 0) && (st.mode & 0o022) === 0;
  if (!ok && process.env.MPAY_CODE_CACHE_DEBUG === '1')
    process.stderr.write(
      `mpay: code cache: not trusted: ${path} (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)}${st.isSymbolicLink() ? ', a link' : ''})\n`,
    );
  return ok;
}

/** Whether path, when it exists, and everything in it (`depth` levels down) passes `trusted`. */
function trustedTree(path, depth) {
  if (!exists(path)) return true;
  if (!trusted(path)) return false;
  let entries = [];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.every((e) =>
    e.isDirectory() && depth > 0 ? trustedTree(join(path, e.name), depth - 1) : trusted(join(path, e.name)),
  );
}

function writeCache(dir, name, filename, script) {
  try {
    // Exclusive and of a random name: never through a link planted at a name that could be guessed.
    const tmp = join(dir, `${name}.${randomBytes(8).toString('hex')}.tmp`);
    writeFileSync(tmp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(dir, name));
    // This Node's caches of older bundles are never read again: drop them. Another Node's are left for
    // it (a machine may run mpay under several).
    const prefix = `${basename(filename)}.`;
    const suffix = `.${process.version}-${process.arch}.v8cache`;
    for (const f of readdirSync(dir))
      if (f.startsWith(prefix) && f.endsWith(suffix) && f !== name) rmSync(join(dir, f), { force: true });
  } catch {
    // the folder turned out not to take it: run without a cache
  }
}

module.exports = { loadBundle, cacheName, userCacheDir, trusted };
