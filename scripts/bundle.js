// Bundles the CLI with esbuild (docs/performance.md). Node 20 has no module compile cache, and loading
// and compiling hundreds of small modules (oclif ~100 files, zod ~95, got ~40) was most of the start-up
// time. So:
//   dist/mpay.cjs  oclif's runner, every command class, got, zod/mini and mpay's own code (the sandbox
//                  too), in one CommonJS file that bin/run.js runs with a V8 code cache
//                  (bin/load-cached.js). esbuild wraps each module so that it runs on first use.
// What only some commands need stays out and loads from node_modules when used: inquirer (prompts),
// cli-table3 (tables), conf (config writes), fastify (the sandbox), qrcode-terminal.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lazyListFormat, lazyPackages, stubGotUnused } from './bundle-config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  metafile: true,
  logLevel: 'warning',
};

rmSync(join(root, 'dist'), { recursive: true, force: true });
const main = await build({
  ...common,
  entryPoints: [join(src, 'execute.ts')],
  outfile: join(root, 'dist', 'mpay.cjs'),
  plugins: [stubGotUnused, lazyListFormat],
  // typescript and ts-node: oclif requires them only to run TypeScript sources in development.
  external: ['typescript', 'ts-node', ...lazyPackages],
});
const outputs = main.metafile.outputs;
for (const [file, o] of Object.entries(outputs))
  console.error(`bundle: ${file} ${(o.bytes / 1024).toFixed(0)} KiB`);

// dist/keyring-child.cjs: the keyring's child process (src/commands/base/keyring-child.ts), which bin/run.js
// starts with MPAY_KEYRING_CHILD=1 for every keyring request. It needs none of oclif, got or zod, so it is
// a bundle of its own, a few KiB, and the child starts in about the time of Node itself instead of the
// time of the whole CLI (docs/performance.md, "The OS keyring").
const child = await build({
  ...common,
  entryPoints: [join(src, 'commands', 'base', 'keyring-child.ts')],
  outfile: join(root, 'dist', 'keyring-child.cjs'),
  external: ['@napi-rs/keyring'],
});
for (const [file, o] of Object.entries(child.metafile.outputs))
  console.error(`bundle: ${file} ${(o.bytes / 1024).toFixed(0)} KiB`);
