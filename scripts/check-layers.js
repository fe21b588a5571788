#!/usr/bin/env node
// Checks the one direction of imports (docs/architecture.md) over every module in src/: static imports,
// re-exports, dynamic import() with a literal specifier, and importLazily('pkg') calls (the bundle's bridge
// to packages left out of it). TypeScript's own pre-processor lists the imports, so a dynamic import is
// seen like any other. `import type` creates no edge at run time and is allowed across layers where the
// rule says so. Run by `npm test` (npm run lint); exits 1 and names each forbidden edge.
//
//   node scripts/check-layers.js [SRC_DIR]
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The layer of a module: its folder under src/, or its own name for the modules at the top. */
export function layerOf(rel) {
  const parts = rel.split(/[\\/]/);
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.ts$/, '');
}

// For each layer: the layers it may import at run time, the layers it may import types from, and the
// packages it must not load.
const ui = ['@inquirer/prompts', 'inquirer', 'cli-table3', 'qrcode-terminal'];
const oclif = /^@oclif\//;
export const rules = {
  api: { may: ['api', 'lazy-import'], types: [], packages: [oclif, ...ui, 'fastify', 'conf'] },
  config: { may: ['api', 'config', 'lazy-import'], types: [], packages: [oclif, ...ui, 'fastify'] },
  journal: { may: ['api', 'journal'], types: [], packages: [oclif, ...ui, 'got', 'fastify', 'conf'] },
  flows: {
    may: ['api', 'config', 'journal', 'flows'],
    types: [],
    packages: [oclif, ...ui, 'got', 'fastify'],
  },
  ui: {
    may: ['ui', 'api-no-client', 'lazy-import'],
    types: ['api', 'flows', 'journal', 'io'],
    packages: ['got', 'fastify'],
  },
  io: { may: ['ui'], types: [], packages: [oclif, 'got'] },
  factory: { may: ['api', 'config', 'journal', 'ui', 'io'], types: ['flows'], packages: [oclif] },
  run: {
    may: ['api', 'config', 'journal', 'flows', 'ui', 'io', 'sandbox', 'proxy', 'run', 'lazy-import'],
    types: ['factory'],
    packages: [oclif],
  },
  shell: { may: ['factory', 'io', 'ui', 'shell'], types: ['flows', 'ui', 'run'], packages: [] },
  commands: {
    may: ['shell', 'run', 'api', 'config', 'sandbox', 'commands'],
    types: [],
    packages: [...ui, 'got', 'fastify'],
  },
  // `mpay proxy`: a forwarder (got, through api/proxy.ts) and the check of answers against the document
  proxy: { may: ['proxy', 'api', 'lazy-import'], types: [], packages: [oclif, ...ui, 'fastify', 'conf'] },
  sandbox: { may: ['sandbox', 'api-no-client'], types: ['api'], packages: [oclif, ...ui, 'got', 'conf'] },
  execute: { may: ['commands', 'shell'], types: [], packages: [] },
  // the single executable's entry: the bundle, and the modules its snapshot holds evaluated
  exe: { may: ['execute', 'api', 'config', 'flows', 'journal', 'ui'], types: [], packages: [] },
  'lazy-import': { may: [], types: [], packages: [] },
};

/** Every import of one file: { specifier, typeOnly } (a specifier also imported for values is not type-only). */
export function importsOf(text) {
  const all = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  for (const m of text.matchAll(/importLazily(?:<[^>]*>)?\(\s*['"]([^'"]+)['"]/g)) all.push(m[1]);
  const typeOnly = new Set(
    [...text.matchAll(/^\s*(?:import|export) type [^;]*? from ['"]([^'"]+)['"]/gms)].map((m) => m[1]),
  );
  const valueToo = new Set(
    [...text.matchAll(/^\s*(?:import|export) (?!type )[^;]*? from ['"]([^'"]+)['"]/gms)].map((m) => m[1]),
  );
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]/g)) valueToo.add(m[1]);
  for (const m of text.matchAll(/importLazily(?:<[^>]*>)?\(\s*['"]([^'"]+)['"]/g)) valueToo.add(m[1]);
  return [...new Set(all)].map((specifier) => ({
    specifier,
    typeOnly: typeOnly.has(specifier) && !valueToo.has(specifier),
  }));
}

function packageName(spec) {
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
}

/** The forbidden edges among the given files ({ relPath: text }), as readable lines. */
export function violations(files) {
  const out = [];
  for (const [rel, text] of Object.entries(files)) {
    const from = layerOf(rel);
    const rule = rules[from];
    if (!rule) {
      out.push(`${rel}: folder "${from}" has no place in the layers (docs/architecture.md)`);
      continue;
    }
    for (const { specifier, typeOnly } of importsOf(text)) {
      if (specifier.startsWith('.')) {
        const target = relative('.', join(dirname(rel), specifier))
          .split(sep)
          .join('/')
          .replace(/\.js$/, '.ts');
        const to = layerOf(target);
        if (to === from) continue;
        const clientless = to === 'api' && !/^api\/(client|proxy)\.ts$/.test(target);
        const allowed =
          rule.may.includes(to) ||
          (clientless && rule.may.includes('api-no-client')) ||
          (typeOnly && rule.types.includes(to));
        if (!allowed)
          out.push(
            `${rel} -> ${target}: ${from}/ may not import ${to}/${typeOnly ? ' (even for types)' : ''}`,
          );
      } else if (!specifier.startsWith('node:')) {
        const pkg = packageName(specifier);
        if (!typeOnly && rule.packages.some((p) => (p instanceof RegExp ? p.test(pkg) : p === pkg)))
          out.push(`${rel} -> ${specifier}: ${from}/ may not load ${pkg}`);
      }
    }
  }
  return out;
}

export function readTree(dir) {
  const files = {};
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
        files[relative(dir, p).split(sep).join('/')] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src'));
  const files = readTree(dir);
  const found = violations(files);
  if (found.length) {
    console.error(
      `check-layers: ${found.length} forbidden import(s) in ${dir}:\n${found.map((l) => `  ${l}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.error(`check-layers: ${Object.keys(files).length} modules, every import in its direction`);
}
