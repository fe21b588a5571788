// Bundles the CLI with esbuild (docs/performance.md). Node 20 has no module compile cache, and loading
// and compiling hundreds of small modules (oclif ~100 files, zod ~95, got ~40) was most of the start-up
// time. So:
//   dist/mpay.cjs  oclif's runner, every command class, got, zod/mini and mpay's own code (the sandbox
//                  too), in one CommonJS file that bin/run.js runs with a V8 code cache
//                  (bin/load-cached.js). esbuild wraps each module so that it runs on first use.
// What only some commands need stays out and loads from node_modules when used: inquirer (prompts),
// cli-table3 (tables), conf (config writes), fastify (the sandbox), qrcode-terminal.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lazyListFormat, lazyPackages, stubGotUnused } from './bundle-config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
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
asciiOnly(join(root, 'dist', 'mpay.cjs'));
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

/**
 * Writes the bundle's few non-ASCII characters as \\u escapes, so that bin/load-cached.js can read it as a
 * one-byte string (latin1) instead of decoding UTF-8 into a two-byte one: about 3 ms of CPU at every start
 * (measured). esbuild escapes strings itself but leaves regular expressions as written (a `…` in oclif's
 * suggestions, ansis's CSI, the phone placeholder's `•`), where `\\uXXXX` means the same character. Only
 * those are rewritten: TypeScript's parser finds each one's token, and any other place (a tagged template,
 * whose raw text a tag may read) stops the build.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  const at = [...text.matchAll(/[\u0080-\uffff]/g)].map((m) => m.index);
  if (at.length === 0) return;
  const ts = require('typescript');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const tokenAt = (pos) => {
    let node = sf;
    for (;;) {
      const child = node.getChildren(sf).find((c) => c.getStart(sf) <= pos && pos < c.end);
      if (!child) return node;
      node = child;
    }
  };
  const safe = new Set([ts.SyntaxKind.RegularExpressionLiteral, ts.SyntaxKind.StringLiteral]);
  for (const pos of at) {
    const token = tokenAt(pos);
    if (!safe.has(token.kind) || pos < token.getStart(sf))
      throw new Error(
        `bundle: a non-ASCII character outside a string or regular expression: ${JSON.stringify(text.slice(pos - 40, pos + 10))}`,
      );
  }
  const escaped = text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  writeFileSync(file, escaped);
}
