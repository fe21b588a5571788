#!/usr/bin/env node
// node scripts/bench-gate.js [--rounds N]: the money gate's own cost per money call, beyond the journal's
// sync (target: at most 2 ms). The measuring code is TypeScript against mpay's own modules
// (scripts/bench-gate.ts), bundled here with esbuild and run in this process. Also part of `npm run bench`.
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));
export const gateTargetMs = 2;

export async function runGateBench(rounds = 2000) {
  const out = await build({
    entryPoints: [join(root, 'scripts', 'bench-gate.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
  });
  // Inside the project (.cache, which git ignores), so that its packages resolve from node_modules.
  mkdirSync(join(root, '.cache'), { recursive: true });
  const file = join(root, '.cache', 'bench-gate.mjs');
  writeFileSync(file, out.outputFiles[0].text);
  const { benchGate } = await import(pathToFileURL(file).href);
  return benchGate(rounds);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  helpOnAsk(import.meta.url);
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '2000' } } });
  const r = await runGateBench(Number(values.rounds));
  console.log(JSON.stringify(r, null, 2));
  console.log(
    `the gate's own work a step, beyond the journal's sync: ${r.lock_held_own_ms.median} ms median with the transaction's lock held by its flow (target ≤ ${gateTargetMs} ms); ${r.gate_own_ms.median} ms when the step takes the lock itself`,
  );
}
