#!/usr/bin/env node
// Start-up is most of what mpay costs a script that calls it in a loop (docs/performance.md), so:
// `mpay --version` answers without loading anything, and mpay's own commands load the bundled CLI
// (dist/mpay.cjs) with a V8 code cache, which Node 20 does not keep for us.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(
    `${pkg.name}/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`,
  );
} else if (process.env.MPAY_KEYRING_CHILD === '1') {
  // The keyring's child process (src/config/keyring.ts): one request on stdin, its answer on stdout. Its
  // own small bundle (scripts/bundle.js), not the CLI's: the child's start is paid by every keyring request.
  const { loadBundle } = await import('./load-cached.js');
  await loadBundle(new URL('../dist/keyring-child.cjs', import.meta.url), false).keyringChild(
    process.stdin,
    process.stdout,
  );
} else {
  // The command the keyring's child process is started with (src/config/keyring.ts): this script.
  globalThis.__mpayKeyringChild = [process.execPath, fileURLToPath(import.meta.url)];
  const { loadBundle } = await import('./load-cached.js');
  const { execute, argvFor } = loadBundle(new URL('../dist/mpay.cjs', import.meta.url), ownCommand(argv));
  // The global flags may come before the command (`mpay --profile a doctor`): argvFor moves them after it.
  await execute({ dir: import.meta.url, args: argvFor(argv) });
}

/**
 * Whether argv names one of mpay's own commands (or only flags, such as --help). A plugin's command
 * (autocomplete) is loaded by oclif with import(), which a code-cached script cannot do on Node 20.
 */
function ownCommand(args) {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../oclif.manifest.json', import.meta.url), 'utf8'));
    // The first word that is not a flag, nor the value of a flag before the command (`--profile a doctor`).
    const valued = new Set(
      Object.values(manifest.commands).flatMap((c) =>
        Object.values(c.flags).flatMap((f) =>
          f.type === 'option' ? [`--${f.name}`, ...(f.char ? [`-${f.char}`] : [])] : [],
        ),
      ),
    );
    const first = args.find((a, i) => !a.startsWith('-') && !valued.has(args[i - 1]));
    if (first === undefined) return true;
    return Object.keys(manifest.commands).some((id) => id.split(':')[0] === first);
  } catch {
    return false;
  }
}
