#!/usr/bin/env node
// Start-up is most of what mpay costs a script that calls it in a loop (docs/performance.md), so:
// `mpay --version` answers without loading anything, and mpay's own commands load the bundled CLI
// (dist/mpay.cjs) with a V8 code cache, which Node 20 does not keep for us. This script and the loader
// are CommonJS (bin/package.json): an ES module as the entry costs Node its ES module loader, about 5 ms
// of CPU on every run (measured), and nothing here needs it.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** The package's folder: oclif's root, where package.json and oclif.manifest.json are. */
const root = join(__dirname, '..');
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  process.stdout.write(
    `${pkg.name}/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`,
  );
} else if (process.env.MPAY_KEYRING_CHILD === '1') {
  // The keyring's child process (src/config/keyring.ts): one request on stdin, its answer on stdout. Its
  // own small bundle (scripts/bundle.js), not the CLI's: the child's start is paid by every keyring request.
  const { loadBundle } = require(join(__dirname, 'load-cached.js'));
  void loadBundle(join(root, 'dist', 'keyring-child.cjs'), false).keyringChild(process.stdin, process.stdout);
} else {
  // The command the keyring's child process is started with (src/config/keyring.ts): this script.
  globalThis.__mpayKeyringChild = [process.execPath, __filename];
  const { loadBundle } = require(join(__dirname, 'load-cached.js'));
  const asked = whatIsAsked(argv);
  const { execute, argvFor } = loadBundle(join(root, 'dist', 'mpay.cjs'), asked !== 'other');
  // oclif is given the package's folder and package.json (the nearest package.json to this script is
  // bin/'s own). One of mpay's own commands is run without oclif's plugins: autocomplete's command is
  // listed by the root help and offered for a mistyped command, which load it as before, and it has no hook
  // that runs for another command. Finding and reading it cost every command about 4 ms of CPU (measured).
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (asked === 'own') pjson.oclif = { ...pjson.oclif, plugins: [] };
  // The global flags may come before the command (`mpay --profile a doctor`): argvFor moves them after it.
  void execute({ loadOptions: { root, pjson }, args: argvFor(argv) });
}

/**
 * What argv asks for: one of mpay's own commands ('own'), only flags such as --help ('flags'), or anything
 * else ('other': a plugin's command, autocomplete, or a mistyped one). A plugin's command is loaded by oclif
 * with import(), which a code-cached script cannot do on Node 20, so only the first two use the code cache.
 */
function whatIsAsked(args) {
  try {
    const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
    // The first word that is not a flag, nor the value of a flag before the command (`--profile a doctor`).
    const valued = new Set(
      Object.values(manifest.commands).flatMap((c) =>
        Object.values(c.flags).flatMap((f) =>
          f.type === 'option' ? [`--${f.name}`, ...(f.char ? [`-${f.char}`] : [])] : [],
        ),
      ),
    );
    const first = args.find((a, i) => !a.startsWith('-') && !valued.has(args[i - 1]));
    if (first === undefined) return 'flags';
    return Object.keys(manifest.commands).some((id) => id.split(':')[0] === first) ? 'own' : 'other';
  } catch {
    return 'other';
  }
}
