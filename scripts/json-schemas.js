#!/usr/bin/env node
// npm run json-schemas: writes docs/json/<output>.schema.json from src/ui/json-schemas.ts (compiled on the
// fly with esbuild). `--check` writes nothing and exits 1 when a file is missing or out of date.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'mpay-schemas-'));
const out = join(tmp, 'json-schemas.mjs');
await build({
  entryPoints: [join(root, 'src', 'ui', 'json-schemas.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  outfile: out,
  logLevel: 'warning',
});
const { outputs, jsonSchemaOf } = await import(pathToFileURL(out).href);
rmSync(tmp, { recursive: true, force: true });
const dir = join(root, 'docs', 'json');
const check = process.argv.includes('--check');
const stale = [];
mkdirSync(dir, { recursive: true });
for (const name of Object.keys(outputs)) {
  const file = join(dir, `${name}.schema.json`);
  const text = `${JSON.stringify(jsonSchemaOf(name), null, 2)}\n`;
  let current;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  if (check) stale.push(file);
  else writeFileSync(file, text);
}
if (stale.length) {
  console.error(
    `json-schemas: out of date (run npm run json-schemas):\n${stale.map((f) => `  ${f}`).join('\n')}`,
  );
  process.exit(1);
}
console.error(
  `json-schemas: ${Object.keys(outputs).length} schemas ${check ? 'current' : 'written'} in docs/json/`,
);
