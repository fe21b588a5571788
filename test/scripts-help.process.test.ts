// Every script of scripts/ that reads flags answers --help (and -h) with its usage, the header comment at its
// top, on stdout, and exit 0, before it does anything else (scripts/script-help.js): `node
// scripts/bench-sandbox.js --help` ran the whole bench.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { diesWithWorker, root } from './helpers.js';
import { header, readingFlags, scripts } from './script-headers.js';

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
