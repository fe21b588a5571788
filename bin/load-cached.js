// Loads a CommonJS bundle with a V8 code cache beside it (<bundle>.v8cache): the compiled code of the
// functions a run used, so that the next run skips parsing and compiling them. This is what
// v8-compile-cache does for require(); Node 20 has no built-in module compile cache. V8 rejects a cache
// made by another V8 version or for another source; the bundle then compiles as usual and the cache is
// written anew. MPAY_NO_CODE_CACHE=1 loads the plain way.
//
// On Node 20 a script loaded from a code cache cannot run import() (its callback is lost), so the bundle
// imports the packages it leaves out through globalThis.__mpayImport, defined here (src/lazy-import.ts).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export function loadBundle(url, cached = true) {
  const filename = fileURLToPath(url);
  const require = createRequire(filename);
  if (!cached || process.env.MPAY_NO_CODE_CACHE === '1') return require(filename);
  globalThis.__mpayImport = (specifier) => import(specifier);
  const cacheFile = `${filename}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache yet: this run makes one
  }
  const script = new vm.Script(Module.wrap(readFileSync(filename, 'utf8')), { filename, cachedData });
  // Registered before it runs, so that oclif's own require() of the bundle finds this same module.
  const mod = new Module(filename);
  mod.filename = filename;
  mod.paths = Module._nodeModulePaths(dirname(filename));
  require.cache[filename] = mod;
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, filename, dirname(filename));
  mod.loaded = true;
  if (!cachedData || script.cachedDataRejected) {
    // At exit the cache holds the functions the run compiled too, not only the top level.
    process.once('exit', () => {
      try {
        const tmp = `${cacheFile}.${process.pid}`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        // a read-only install: run without a cache
      }
    });
  }
  return mod.exports;
}
