// Every script of scripts/ that reads flags answers --help (and -h) with its usage, the header comment at its
// top, on stdout, and exit 0, before it does anything else (scripts/script-help.js): `node
// scripts/bench-sandbox.js --help` ran the whole bench.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { diesWithWorker, root } from './helpers.js';

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

function runScript(file: string, flag: string): Promise<{ code: number | null; stdout: string }> {
  const [cmd, args] = diesWithWorker([process.execPath, join(scripts, file), flag]);
  const child = spawn(cmd, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

it('the scripts that read flags are the ones known, each with a header that says how to run it', () => {
  expect(readingFlags).toEqual([
    'bench-ab.js',
    'bench-gate.js',
    'bench-journal.js',
    'bench-keyring.js',
    'bench-sandbox.js',
    'bench-signal.js',
    'bench-startup.js',
    'bench.js',
    'build-exe.js',
    'check-layers.js',
    'figures.js',
    'json-schemas.js',
  ]);
  for (const f of readingFlags) expect(header(f), f).toMatch(/(node scripts\/|npm run )[\w.:-]+/);
});

it(
  'each prints its usage on --help and -h and exits 0, having run nothing',
  { timeout: 120_000 },
  async () => {
    // Four at once (each a Node start of its own): both cores busy, instead of one start at a time.
    const runs = readingFlags.flatMap((f) => (['--help', '-h'] as const).map((flag) => ({ f, flag })));
    const next = runs.entries();
    const results: Array<{ code: number | null; stdout: string }> = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (const [i, { f, flag }] of next) results[i] = await runScript(f, flag);
      }),
    );
    runs.forEach(({ f, flag }, i) => {
      expect(results[i]!.code, `${f} ${flag}`).toBe(0);
      expect(results[i]!.stdout, `${f} ${flag}`).toBe(`${header(f)}\n`);
    });
  },
);
