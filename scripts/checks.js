// The static checks `npm test` runs before vitest, side by side:
//
//   node scripts/checks.js
//
// the type check (tsc), eslint, prettier's check and the layer check (scripts/check-layers.js). Each is one
// Node process that keeps one core busy, so one after another they leave the other core idle. Each one's output is held and printed whole when it ends, under its name, so that two
// never interleave. Exits 1 when any failed, after all have ended; `npm run typecheck` and `npm run lint`
// run the same commands one by one.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
// the package's own scripts, so that each check's command line is written once, in package.json
const checks = ['typecheck', 'lint:format', 'lint:eslint', 'lint:layers'].map((script) => [
  script,
  'npm',
  ['run', '-s', script],
]);

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
