// Every script of scripts/ that reads flags answers --help (and -h) with its usage, the header comment at its
// top, on stdout, and exit 0, before it does anything else (scripts/script-help.js): `node
// scripts/bench-sandbox.js --help` ran the whole bench.
import { type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { root } from './helpers.js';

const scripts = join(root, 'scripts');

/** The scripts that read flags or arguments of their own (script-help.js is the helper they call). */
const readingFlags = readdirSync(scripts)
  .filter((f) => f.endsWith('.js') && f !== 'script-help.js')
  .filter((f) =>
    /parseArgs\(|process\.argv\.(includes|indexOf|slice)\(|process\.argv\[[2-9]\]/.test(
      readFileSync(join(scripts, f), 'utf8'),
    ),
  )
  .sort();

/** A script's header comment, as --help prints it. */
function header(file: string): string {
  const lines = readFileSync(join(scripts, file), 'utf8').split('\n');
  const start = lines[0]!.startsWith('#!') ? 1 : 0;
  const end = lines.findIndex((l, i) => i >= start && !l.startsWith('//'));
  return lines
    .slice(start, end)
    .map((l) => l.replace(/^\/\/ ?/, ''))
    .join('\n')
    .trim();
}

// A script that ran its work instead (a bench) is ended with its children when the test ends (its process
// group), and by the kernel should this worker end first (setpriv's parent-death signal).
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running)
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  running.clear();
});

it('the scripts that read flags are the ones known, each with a header that says how to run it', () => {
  expect(readingFlags).toEqual([
    'bench-ab.js',
    'bench-gate.js',
    'bench-journal.js',
    'bench-keyring.js',
    'bench-sandbox-store.js',
    'bench-sandbox.js',
    'bench-signal.js',
    'bench-startup.js',
    'bench.js',
    'build-exe.js',
    'check-layers.js',
    'commands-doc.js',
    'figures.js',
    'json-schemas.js',
  ]);
  for (const f of readingFlags) expect(header(f), f).toMatch(/(node scripts\/|npm run )[\w.:-]+/);
});
