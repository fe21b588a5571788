// The static checks `npm test` runs before vitest, side by side:
//
//   node scripts/checks.js
//
// the type check (tsc), eslint, prettier's check and the layer check (scripts/check-layers.js). Each is one
// Node process that keeps one core busy; run one after another they took about twice as long on two cores
// as side by side. Each one's output is held and printed whole when it ends, under its name, so that two
// never interleave. Exits 1 when any failed, after all have ended; `npm run typecheck` and `npm run lint`
// run the same commands one by one.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

// longest first, so that the two cores are never left with one long check at the end
const checks = [
  [
    'typecheck',
    bin('tsc'),
    ['-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', '.cache/tsc.tsbuildinfo'],
  ],
  ['prettier', bin('prettier'), ['--check', '.']],
  ['eslint', bin('eslint'), ['.']],
  ['layers', process.execPath, ['scripts/check-layers.js']],
];

/** Runs one check to its end: its name, exit status and everything it wrote. */
function run([name, command, args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (e) => resolve({ name, status: `could not start: ${e.message}`, out }));
    child.on('close', (code, signal) => resolve({ name, status: code ?? signal, out }));
  });
}

const results = await Promise.all(
  checks.map((check) =>
    run(check).then((r) => {
      process.stdout.write(`\n> ${r.name}${r.status === 0 ? '' : `: failed (${r.status})`}\n`);
      process.stdout.write(Buffer.concat(r.out));
      return r;
    }),
  ),
);
const failed = results.filter((r) => r.status !== 0).map((r) => r.name);
if (failed.length) {
  process.stderr.write(`\nchecks: failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
