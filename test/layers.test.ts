import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript script, without type declarations
import { importsOf, readTree, violations } from '../scripts/check-layers.js';
import { root, tempDir } from './helpers.js';

/** The violations the check finds in a src/ of the given files, written to a folder of their own. */
function inTree(files: Record<string, string>): string[] {
  const dir = tempDir();
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return violations(readTree(dir));
}

const unseen =
  ": the layer check cannot see what it loads; use import with a literal specifier, or importLazily('pkg')";
const got = "import got from 'got';\nexport const http = got;\n";
const nodeModule = 'node:module (createRequire, Module._load: a loader of its own)';
const lazy = readFileSync(join(root, 'src', 'lazy-import.ts'), 'utf8');

describe('the layer check', () => {
  it('lets a type-only import cross where the rules allow types, and only there', () => {
    expect(importsOf("import type { X } from './a.js';\nimport { y } from './b.js';")).toEqual([
      { specifier: './a.js', typeOnly: true },
      { specifier: './b.js', typeOnly: false },
    ]);
    expect(violations({ 'ui/x.ts': "import type { Client } from '../api/client.js';\n" })).toEqual([]);
    expect(violations({ 'ui/x.ts': "import { Client } from '../api/client.js';\n" })).toEqual([
      'ui/x.ts -> api/client.ts: ui/ may not import api/',
    ]);
    expect(violations({ 'api/x.ts': "import type { IO } from '../io.js';\n" })).toEqual([
      'api/x.ts -> io.ts: api/ may not import io/ (even for types)',
    ]);
  });

  it('bans a package in a module of the layer itself', () => {
    expect(inTree({ 'ui/x.ts': got })).toEqual(['ui/x.ts -> got: ui/ may not load got']);
  });

  it('bans a package through a chain of imports and re-exports, and names the chain', () => {
    // ui/ may import api/ but its client: har.ts passes rule 1, and what it loads is still ui/'s business
    expect(
      inTree({
        'ui/x.ts': "import { har } from '../api/har.js';\nexport const x = har;\n",
        'api/har.ts': "export { http as har } from './http.js';\n",
        'api/http.ts': got,
      }),
    ).toEqual(['ui/x.ts -> api/har.ts -> api/http.ts -> got: ui/ may not load got']);
  });

  it('bans a package through a dynamic import() with a literal specifier, odd spacing and all', () => {
    expect(
      inTree({
        'flows/x.ts': "export const x = async () => (await import (\n  '../api/client.js')).http;\n",
        'api/client.ts': got,
      }),
    ).toEqual(['flows/x.ts -import()-> api/client.ts -> got: flows/ may not load got']);
    expect(
      inTree({
        'sandbox/x.ts': "import { q } from '../api/q.js';\nexport const x = q;\n",
        'api/q.ts':
          "import { importLazily } from '../lazy-import.js';\nexport const q = () => importLazily('got');\n",
        'lazy-import.ts': lazy,
      }),
    ).toEqual(['sandbox/x.ts -> api/q.ts -importLazily()-> got: sandbox/ may not load got']);
  });

  it('follows no type-only import: they create no edge at run time', () => {
    expect(
      inTree({
        'ui/x.ts': [
          "import type { Har } from '../api/har.js';",
          "import { type Http } from '../api/http.js';",
          "export type { Client } from '../api/client.js';",
          "export type Got = typeof import('got');",
          'export const x = (h: Har, c: Http): unknown => [h, c];',
          '',
        ].join('\n'),
        'api/har.ts': "import { http } from './http.js';\nexport type Har = typeof http;\n",
        'api/http.ts': got + 'export type Http = typeof got;\n',
        'api/client.ts': got + 'export class Client {}\n',
      }),
    ).toEqual([]);
  });

  it('reports a chain once, from the last module on it whose layer bans the package', () => {
    // journal/x.ts reaches got only through journal/y.ts, which is reported: fixing y.ts fixes x.ts
    const files = {
      'journal/x.ts': "import { y } from './y.js';\nexport const x = y;\n",
      'journal/y.ts': "import { c } from '../api/client.js';\nexport const y = c;\n",
      'api/client.ts': "import got from 'got';\nexport const c = got;\n",
    };
    expect(inTree(files)).toEqual(['journal/y.ts -> api/client.ts -> got: journal/ may not load got']);
  });

  it('holds the command classes to what they load as they load: static chains only, their own modules in any way', () => {
    expect(
      inTree({
        'commands/a/command.ts': "import { r } from './run.js';\nexport const a = r;\n",
        'commands/a/run.ts': got.replace('http', 'r'),
        'commands/b/command.ts': "export const b = async () => (await import('./run.js')).r;\n",
        'commands/b/run.ts': got.replace('http', 'r'),
        'commands/c/command.ts': "export const c = async () => (await import('got')).default;\n",
      }),
    ).toEqual([
      'commands/a/command.ts -> commands/a/run.ts -> got: cli/ may not load got as it loads',
      'commands/c/command.ts -import()-> got: cli/ may not load got',
    ]);
  });

  it('rejects import() of a computed specifier, and importLazily() of one', () => {
    expect(
      violations({
        'api/x.ts': [
          "const name = 'got';",
          'export const a = () => import(name);',
          'export const b = () => import (',
          '  name);',
          'export const c = () => import(`./${name}.js`);',
          "import { importLazily } from '../lazy-import.js';",
          'export const d = () => importLazily(name);',
          'export const e = () => import(`./fixed.js`);',
          '',
        ].join('\n'),
        'api/fixed.ts': 'export {};\n',
        'lazy-import.ts': lazy,
      }),
    ).toEqual([
      `api/x.ts:2: import() of a computed specifier${unseen}`,
      `api/x.ts:3: import() of a computed specifier${unseen}`,
      `api/x.ts:5: import() of a computed specifier${unseen}`,
      `api/x.ts:7: importLazily() of a computed specifier${unseen}`,
    ]);
  });

  it('rejects require, in every form', () => {
    expect(
      violations({
        'ui/x.ts': [
          "export const a = require('got');",
          'export const b = module.require(process.argv[2]);',
          "export const c = process.mainModule?.require('got');",
          'const r = require;',
          "export const d = (globalThis as { require?: NodeRequire }).require?.('got');",
          "import e = require('got');",
          "export const f = (module as unknown as Record<string, () => unknown>)['require'];",
          'export { r, e };',
          '',
        ].join('\n'),
      }),
    ).toEqual([
      `ui/x.ts:1: require${unseen}`,
      `ui/x.ts:2: require${unseen}`,
      `ui/x.ts:3: process.mainModule${unseen}`,
      `ui/x.ts:3: require${unseen}`,
      `ui/x.ts:4: require${unseen}`,
      `ui/x.ts:5: a value typed NodeJS.Require (a require() under another name)${unseen}`,
      `ui/x.ts:5: require${unseen}`,
      `ui/x.ts:6: import … = require(…)${unseen}`,
      `ui/x.ts:7: require${unseen}`,
    ]);
  });

  it('rejects createRequire and process.getBuiltinModule, however they are reached', () => {
    expect(
      violations({
        'flows/x.ts': [
          "import { createRequire } from 'node:module';",
          'export const a = createRequire(import.meta.url);',
          "import * as m from 'node:module';",
          "export const b = m.createRequire(import.meta.url)('got');",
          "export const c = process.getBuiltinModule('node:module');",
          '',
        ].join('\n'),
      }),
    ).toEqual([
      `flows/x.ts:1: ${nodeModule}${unseen}`,
      `flows/x.ts:1: createRequire${unseen}`,
      `flows/x.ts:2: createRequire${unseen}`,
      `flows/x.ts:3: ${nodeModule}${unseen}`,
      `flows/x.ts:4: createRequire${unseen}`,
      `flows/x.ts:5: process.getBuiltinModule${unseen}`,
    ]);
  });

  it('lets the listed files, and only they, load what it cannot see, of the kinds listed', () => {
    const exe = readFileSync(join(root, 'src', 'exe.ts'), 'utf8');
    expect(violations({ 'lazy-import.ts': lazy, 'exe.ts': exe })).toEqual([]);
    const lazyLine = lazy.split('\n').findIndex((l) => /\bimport\(specifier\)/.test(l)) + 1;
    const exeLine = exe.split('\n').findIndex((l) => /NodeJS\.Require/.test(l)) + 1;
    expect(violations({ 'api/lazy.ts': lazy, 'exe2.ts': exe })).toEqual([
      `api/lazy.ts:${lazyLine}: import() of a computed specifier${unseen}`,
      `exe2.ts:${exeLine}: a value typed NodeJS.Require (a require() under another name)${unseen}`,
      'exe2.ts: folder "exe2" has no place in the layers (docs/architecture.md)',
    ]);
    // an exception is for its kind only
    expect(violations({ 'lazy-import.ts': `${lazy}export const r = require('got');\n` })).toEqual([
      `lazy-import.ts:${lazy.split('\n').length}: require${unseen}`,
    ]);
  });

  it('sees no require( or import( in comments, strings and property names', () => {
    expect(
      violations({
        'api/x.ts': [
          "// require('got'), import(name), createRequire(import.meta.url)",
          '/* module.require(x) */',
          'export const s = "require(\'got\') import(name)";',
          'export const t = `createRequire(${s}) import (x)`;',
          'export const o = { require: true, createRequire: 1 };',
          'export interface I { require: boolean; getBuiltinModule(): void }',
          '',
        ].join('\n'),
      }),
    ).toEqual([]);
  });
});

describe('the layer check reads what a name stands for through the type checker', () => {
  it('refuses the tricks that fooled a check by names: an alias, a namespace, (0, f)(…), node:module', () => {
    expect(
      inTree({
        'lazy-import.ts': lazy,
        'ui/alias.ts':
          "import { importLazily as il } from '../lazy-import.js';\nexport const a = () => il('got');\n",
        'ui/namespace.ts':
          "import * as L from '../lazy-import.js';\nexport const b = () => L.importLazily('fastify');\n",
        'ui/comma.ts':
          "import * as L from '../lazy-import.js';\nexport const c = () => (0, L.importLazily)('got');\n",
        'ui/element.ts': [
          "import * as m from 'node:module';",
          "export const d = () => m['create' + 'Require'](import.meta.url)('got');",
          '',
        ].join('\n'),
        'ui/load.ts': [
          "import Module from 'node:module';",
          "export const e = () => (Module as unknown as { _load(s: string): unknown })._load('got');",
          '',
        ].join('\n'),
      }),
    ).toEqual([
      `ui/element.ts:1: ${nodeModule}${unseen}`,
      `ui/element.ts:2: ${nodeModule}${unseen}`,
      `ui/load.ts:1: ${nodeModule}${unseen}`,
      `ui/load.ts:2: Module._load${unseen}`,
      'ui/alias.ts -importLazily()-> got: ui/ may not load got',
      'ui/comma.ts -importLazily()-> got: ui/ may not load got',
      'ui/namespace.ts -importLazily()-> fastify: ui/ may not load fastify',
    ]);
  });

  it('follows importLazily through a re-export under another name, and refuses it passed as a value', () => {
    expect(
      inTree({
        'lazy-import.ts': lazy,
        'ui/again.ts': "export { importLazily as load } from '../lazy-import.js';\n",
        'ui/x.ts': "import { load } from './again.js';\nexport const x = () => load('got');\n",
        'ui/y.ts': [
          "import { importLazily } from '../lazy-import.js';",
          'const f = importLazily;',
          "export const y = () => ['got'].map(importLazily);",
          "export const z = () => f('got');",
          '',
        ].join('\n'),
        'ui/z.ts':
          "import { importLazily } from '../lazy-import.js';\nexport const typed: typeof importLazily = (s) => import(s);\n",
      }),
    ).toEqual([
      `ui/y.ts:2: importLazily used other than called (the check reads only its calls)${unseen}`,
      `ui/y.ts:3: importLazily used other than called (the check reads only its calls)${unseen}`,
      `ui/z.ts:2: import() of a computed specifier${unseen}`,
      // the call is x.ts's own: the checker says `load` is importLazily
      'ui/x.ts -importLazily()-> got: ui/ may not load got',
    ]);
  });

  it('holds a name re-exported from another layer to rule 1 where it is declared', () => {
    expect(
      violations({
        'api/client.ts': 'export class Client {}\n',
        'api/index.ts': "export { Client } from './client.js';\nexport const plain = 1;\n",
        'ui/x.ts': "import { Client, plain } from '../api/index.js';\nexport const x = [Client, plain];\n",
        'ui/y.ts': "import * as A from '../api/index.js';\nexport const y = A.Client;\n",
        'ui/z.ts': "import * as A from '../api/index.js';\nexport const z = A.plain;\n",
      }),
    ).toEqual([
      'ui/x.ts -> api/index.ts -> api/client.ts: ui/ may not import api/',
      'ui/y.ts -> api/index.ts -> api/client.ts: ui/ may not import api/',
    ]);
  });

  it('holds io/ to importing nothing of mpay’s, as docs/architecture.md says', () => {
    expect(
      violations({
        'io/x.ts': "import { renderTable } from '../ui/output.js';\nexport const x = renderTable;\n",
      }),
    ).toEqual(['io/x.ts -> ui/output.ts: io/ may not import ui/']);
  });

  it('lets only the files of loaderExceptions use a loader, each of the kinds listed', () => {
    const files = {
      'ui/m.ts': "import { createRequire } from 'node:module';\nexport const r = createRequire;\n",
    };
    expect(violations(files, { exceptions: { 'ui/m.ts': ['node:module', 'createRequire'] } })).toEqual([]);
    expect(violations(files, { exceptions: { 'ui/m.ts': ['createRequire'] } })).toEqual([
      `ui/m.ts:1: ${nodeModule}${unseen}`,
    ]);
  });
});
