// Bundles oclif's runner and each command, with the libraries they load, into dist/ with esbuild: Node
// 20 has no compile cache, and loading hundreds of small modules (oclif ~100 files, zod ~95, got ~40)
// was most of the start-up time. Shared code goes into chunks, so the runner and the commands share one
// copy of @oclif/core; dynamic imports stay lazy chunks. See docs/performance.md.
import { build } from 'esbuild';
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const walk = (dir) =>
  readdirSync(dir).flatMap((f) =>
    statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)],
  );
const entryPoints = walk(join(src, 'commands')).filter((f) => f.endsWith('.ts'));
// Modules that tests and other tools import from dist by path keep their own entry.
entryPoints.push(join(src, 'sandbox', 'server.ts'), join(src, 'execute.ts'));

rmSync(join(root, 'dist'), { recursive: true, force: true });
const result = await build({
  entryPoints,
  outdir: join(root, 'dist'),
  outbase: src,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  metafile: true,
  chunkNames: 'chunks/[name]-[hash]',
  // oclif requires these only to run TypeScript sources in development; never in a built CLI.
  external: ['typescript', 'ts-node'],
  // Some bundled CommonJS packages call require(); give ES modules one.
  banner: {
    js: "import { createRequire as __mpayRequire } from 'node:module'; const require = __mpayRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
// Which packages each output file holds: the start-up test reads it to tell what a command loads.
writeFileSync(
  join(root, 'dist', 'bundle-meta.json'),
  JSON.stringify(
    Object.fromEntries(
      Object.entries(result.metafile.outputs).map(([file, o]) => [
        file,
        [
          ...new Set(
            Object.keys(o.inputs).map((i) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(i)?.[1] ?? 'mpay'),
          ),
        ],
      ]),
    ),
  ),
);
const out = Object.entries(result.metafile.outputs);
const size = out.reduce((n, [, o]) => n + o.bytes, 0);
console.error(
  `bundle: ${entryPoints.length} entries, ${out.length} files, ${(size / 1024).toFixed(0)} KiB in ${relative(root, join(root, 'dist'))}/`,
);
