#!/usr/bin/env node
// Checks the one direction of imports (docs/architecture.md) over every module in src/. Run by `npm test`
// (npm run lint); exits 1 and names each violation. It builds one TypeScript program of src/ alone (no lib,
// no @types, no packages: a few seconds), so comments and strings never count, odd spacing
// (`import (x)`) hides nothing, and the type checker says what a name stands for wherever it is used.
//
//   node scripts/check-layers.js [SRC_DIR]
//
// What it sees. A module's edges are its static imports and re-exports (`import './x.js'` included),
// dynamic import() with a literal specifier, and calls of importLazily('pkg') (the bundle's bridge to the
// packages left out of it, src/lazy-import.ts), under whatever name the call reaches it: the checker
// follows aliases (`import { importLazily as il }`), namespace imports (`L.importLazily`), re-exports
// under another name, and callees such as `(0, L.importLazily)`. A name imported from a module that only
// re-exports it is held to rule 1 where it is declared too (`ui -> api/index.ts -> api/client.ts`).
// `import type`, `export type`, an import whose every name is marked `type`, and `typeof import('…')` are
// type-only: they create no edge at run time.
//
// Three rules:
//
// 1. Layers, per direct edge. A module may import at run time the layers its rule lists under `may`, and
//    types from those under `types` (and `may`). This rule looks at each import on its own: a layer that
//    may import ui/ may use whatever ui/ itself is allowed to import. It is not transitive.
//
// 2. Packages, transitively. A layer's `packages` are the ones it must never load, by any path: if module
//    A's layer bans P, no module reachable from A through value edges (static imports, re-exports, literal
//    import(), importLazily) may import P. A dynamic import() counts: it loads P whenever that path runs,
//    and a ban means "never loads". Type-only edges are not followed. The message shows the chain,
//    `ui/x.ts -> api/har.ts -> got`, with `-import()->` or `-importLazily()->` for the dynamic hops. A chain
//    is reported from the last module on it whose own layer bans P: fixing that one fixes those above it,
//    so they are not listed again (a module with another path to P is listed for that path).
//    A layer whose modules start the whole program (cli: each class's run() imports the rest) cannot
//    ban a package by every path. Its `atLoad` packages are the ones it must not load as it loads (oclif
//    loads every class for help and the manifest): its own modules must not import P at all, in any way,
//    and no chain of static imports and re-exports from them may reach P. Dynamic hops are not followed.
//    The two rules meet only in the packages: rule 1 says which layer an edge may reach, rule 2 what the
//    whole chain behind it may load. A layer allowed to import ui/ may still not load, through ui/, a
//    package its own rule bans.
//
// 3. No loading the check cannot see. In src/, no import() or importLazily() of a computed specifier, no
//    importLazily other than called (`const f = importLazily`, `.map(importLazily)`), no require (called or
//    not, also as module.require, process.mainModule.require, globalThis.require or
//    `import x = require(…)`), no node:module in any form (an import of it, `m['create' + 'Require']`,
//    createRequire, Module._load, process.mainModule), no process.getBuiltinModule (it hands out
//    node:module), no computed property of process, globalThis, global or module, and no value typed
//    NodeJS.Require (a require() under another name). Not seen: code made from strings (eval, new
//    Function, node:vm) and Reflect, which no parser can read ahead. The few files that must do one of
//    these are listed in `loaderExceptions`, each with the kinds it may use and why.
//
// The layer names are in `rules` only (and `layerOf` says how a file's path names its layer): renaming a
// layer or adding one is an edit to that table, which is itself checked for names it does not know.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { helpOnAsk } from './script-help.js';

/** The layer of a module: its folder under src/, or its own name for the modules at the top. */
export function layerOf(rel) {
  const parts = rel.split(/[\\/]/);
  // A command's folder holds two layers: its oclif class (command.ts, with what the classes share in
  // commands/base/) and its run function (the other files).
  if (parts[0] === 'commands')
    return parts.at(-1) === 'command.ts' || parts[1] === 'base' ? 'cli' : 'commands';
  return parts.length > 1 ? parts[0] : parts[0].replace(/\.ts$/, '');
}

// For each layer: the layers it may import at run time (`may`), the layers it may import types from
// (`types`), the packages it must never load, directly or through any module it imports (`packages`), and,
// optionally, those it must not load as it loads (`atLoad`; see rule 2 above).
// `api-no-client` in `may` is api/ but its client (api/client.ts, api/sender.ts, api/proxy.ts), the modules
// that load got.
const ui = ['@inquirer/prompts', 'inquirer', 'cli-table3', 'qrcode-terminal'];
const oclif = /^@oclif\//;
export const rules = {
  api: { may: ['common', 'api', 'lazy-import'], types: [], packages: [oclif, ...ui, 'fastify', 'conf'] },
  config: { may: ['common', 'api', 'config', 'lazy-import'], types: [], packages: [oclif, ...ui, 'fastify'] },
  // journal/database.ts loads SQLite (libsql) when a command first opens a journal, never as a module loads:
  // the layers that reach it (factory, cli, exe) ban it `atLoad`, so that `countries` or `--help` load none
  // of it, and the executable's snapshot holds the journal's modules without it
  journal: {
    may: ['common', 'api', 'journal', 'lazy-import'],
    types: [],
    packages: [oclif, ...ui, 'got', 'fastify', 'conf'],
  },
  flows: {
    may: ['common', 'api', 'config', 'journal', 'flows', 'lazy-import'],
    types: [],
    packages: [oclif, ...ui, 'got', 'fastify'],
  },
  ui: {
    may: ['common', 'ui', 'api-no-client', 'lazy-import', 'io'],
    types: ['api', 'flows', 'journal', 'io'],
    packages: ['got', 'fastify'],
  },
  io: { may: [], types: [], packages: [oclif, 'got'] },
  factory: {
    may: ['common', 'api', 'config', 'journal', 'ui', 'io', 'flows'],
    types: [],
    packages: [oclif],
    atLoad: ['libsql'],
  },
  // the run functions, and what they share (commands/shared/)
  commands: {
    may: [
      'common',
      'api',
      'config',
      'journal',
      'flows',
      'ui',
      'io',
      'factory',
      'sandbox',
      'proxy',
      'mcp',
      'commands',
      'lazy-import',
    ],
    types: ['cli'],
    packages: [oclif],
  },
  // `mpay mcp`: the MCP server beside the commands; it reads the flows and the Factory (whose prompter it never
  // asks: the person is asked through MCP elicitation), and loads no oclif, no table and no sandbox
  mcp: {
    may: ['common', 'mcp', 'factory', 'flows', 'api', 'config', 'journal', 'ui', 'io', 'lazy-import'],
    types: [],
    packages: [oclif, 'cli-table3', 'fastify'],
  },
  // the oclif classes (commands/**/command.ts) and commands/base/: oclif loads every class at start (help,
  // the manifest), and each class's run() imports the rest, so their ban holds as they load
  cli: {
    may: ['common', 'cli', 'commands', 'factory', 'io', 'ui', 'flows', 'api', 'config', 'sandbox'],
    types: ['commands', 'flows', 'ui'],
    packages: [],
    atLoad: [...ui, 'got', 'fastify', 'libsql', '@peculiar/x509'],
  },
  // `mpay proxy`: a forwarder (got, through api/proxy.ts) and the check of answers against the document
  proxy: {
    may: ['common', 'proxy', 'api', 'lazy-import'],
    types: [],
    packages: [oclif, ...ui, 'fastify', 'conf'],
  },
  sandbox: {
    may: ['common', 'sandbox', 'api-no-client'],
    types: ['api'],
    packages: [oclif, ...ui, 'got', 'conf'],
  },
  execute: { may: ['cli'], types: [], packages: [] },
  // the single executable's entry: the bundle (and through it the keyring child's entry, a cli module), and the
  // modules its snapshot holds evaluated
  exe: {
    may: ['common', 'execute', 'cli', 'api', 'config', 'flows', 'journal', 'ui'],
    types: [],
    packages: [],
    atLoad: ['libsql'],
  },
  // Plain values and helpers every layer uses (errors, decimal amounts, shell words, suggestions, private
  // paths, output files, times, process liveness): below api/, importing no layer of mpay's
  common: { may: ['common'], types: [], packages: [oclif, ...ui, 'got', 'fastify', 'conf', 'libsql'] },
  'lazy-import': { may: [], types: [], packages: [] },
};

/** The modules of api/ that load got; `api-no-client` is api/ without them. */
const apiClient = /^api\/(client|sender|proxy)\.ts$/;

// The files of src/ that may load in a way rule 3 forbids, by path under src/, each with the kinds it may
// use (the kinds are those `scan` reports; see `loaderKinds`). This is the one list of exceptions: the
// modules docs/architecture.md names for it. Keep it short.
export const loaderExceptions = {
  // The bridge itself: importLazily(specifier) hands its argument to import() (or, in the executable, to
  // the importer exe.ts installs), so its import() is computed by design. Every caller passes a literal,
  // which this check reads at the call (rule 3 rejects importLazily of a computed specifier, and any use of
  // it other than a call), so the packages loaded through it are checked where they are named.
  'lazy-import.ts': ['computed import()'],
  // The single executable's CommonJS entry. The bundle's banner hands it Node's require as
  // __builtinRequire (typed NodeJS.Require), and it must hand a require() on to the bundle and to the
  // packages kept as assets. What it loads that way is node: built-ins, the bundle it already imports, and
  // the packages in MPAY_EXTRAS, which src/ modules reach only through importLazily('pkg') (checked at
  // each call). exe/ bans no package and no module imports it, so nothing it loads can reach a layer with
  // a ban through it.
  'exe.ts': ['require under another name'],
};

const loaderKinds = {
  'computed import()': 'import() of a computed specifier',
  'computed importLazily()': 'importLazily() of a computed specifier',
  'importLazily as a value': 'importLazily used other than called (the check reads only its calls)',
  require: 'require',
  'import = require()': 'import … = require(…)',
  createRequire: 'createRequire',
  getBuiltinModule: 'process.getBuiltinModule',
  'node:module': 'node:module (createRequire, Module._load: a loader of its own)',
  _load: 'Module._load',
  mainModule: 'process.mainModule',
  'computed global': 'a computed property of process, globalThis, global or module',
  'require under another name': 'a value typed NodeJS.Require (a require() under another name)',
};

/** Names that, as a value or as a property read, are a loader the check cannot follow. */
const loaderNames = new Set(['require', 'createRequire', 'getBuiltinModule', '_load', 'mainModule']);
/** The globals whose computed properties could reach a loader (`process['getBuilt' + 'inModule']`). */
const loaderGlobals = new Set(['process', 'globalThis', 'global', 'module']);
const nodeModule = new Set(['module', 'node:module']);

const isLiteral = (n) => n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n));

/** Whether `node` is the name in a declaration of a property (`{ require: 1 }`, `interface X { require }`). */
function isPropertyName(node) {
  const p = node.parent;
  return (
    p &&
    p.name === node &&
    (ts.isPropertyAssignment(p) ||
      ts.isPropertySignature(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isMethodSignature(p) ||
      ts.isGetAccessor(p) ||
      ts.isSetAccessor(p) ||
      ts.isEnumMember(p))
  );
}

/** Whether an identifier is a name being declared or a part of an import or export clause. */
function isDeclarationName(node) {
  const p = node.parent;
  if (!p) return true;
  if (
    ts.isImportSpecifier(p) ||
    ts.isExportSpecifier(p) ||
    ts.isImportClause(p) ||
    ts.isNamespaceImport(p) ||
    ts.isNamespaceExport(p) ||
    ts.isImportEqualsDeclaration(p)
  )
    return true;
  return p.name === node && !ts.isPropertyAccessExpression(p) && !ts.isShorthandPropertyAssignment(p);
}

/** Whether a node sits in a type (a type annotation, `typeof x` in a type, an interface). */
function inType(node) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return true;
    if (ts.isExpression(n) || ts.isStatement(n) || ts.isSourceFile(n)) return false;
  }
  return false;
}

/** The callee a call really names: `(f)`, `(0, f)`, `f as X`, `f!` are all f. */
function calleeOf(e) {
  for (;;) {
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e))
      e = e.expression;
    else if (ts.isTypeAssertionExpression?.(e) || ts.isSatisfiesExpression?.(e)) e = e.expression;
    else if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.CommaToken) e = e.right;
    else return e;
  }
}

/** Whether `node` is the callee (through parentheses, commas, casts) of a call, and that call. */
function callOf(node) {
  let n = node;
  // a namespace member: L.importLazily is the expression, not its name
  if (ts.isPropertyAccessExpression(n.parent) && n.parent.name === n) n = n.parent;
  for (let p = n.parent; p; n = p, p = p.parent) {
    if (ts.isCallExpression(p)) return p.expression === n || calleeOf(p.expression) === n ? p : undefined;
    const through =
      ts.isParenthesizedExpression(p) ||
      ts.isAsExpression(p) ||
      ts.isNonNullExpression(p) ||
      (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.CommaToken && p.right === n);
    if (!through) return undefined;
  }
  return undefined;
}

const root = '/src/';

/**
 * A TypeScript program over the given files ({ relPath: text }, paths under src/) and no other: a relative
 * import resolves as the compiler resolves it (NodeNext, `./x.js` to x.ts), a package is left unresolved
 * (its edge is the specifier), and no lib or @types is read. The
 * type checker then answers what an identifier names, through aliases, namespace imports and re-exports.
 */
function programOf(files) {
  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noLib: true,
    types: [],
    noEmit: true,
    allowJs: false,
  };
  const texts = new Map(Object.entries(files).map(([rel, text]) => [root + rel, text]));
  const dirs = new Set(
    [...texts.keys()].flatMap((f) =>
      f
        .split('/')
        .slice(1, -1)
        .map((_, i, a) => `/${a.slice(0, i + 1).join('/')}`),
    ),
  );
  const host = {
    fileExists: (f) => texts.has(f),
    readFile: (f) => texts.get(f),
    directoryExists: (d) => dirs.has(d.replace(/\/$/, '')),
    getSourceFile: (f, version) =>
      texts.has(f)
        ? ts.createSourceFile(
            f,
            texts.get(f),
            { languageVersion: version, impliedNodeFormat: ts.ModuleKind.ESNext },
            true,
            ts.ScriptKind.TS,
          )
        : undefined,
    getDefaultLibFileName: () => '/lib.d.ts',
    writeFile: () => {},
    getCurrentDirectory: () => root,
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    resolveModuleNameLiterals: (literals, containingFile) =>
      literals.map((l) => ({
        resolvedModule: l.text.startsWith('.')
          ? ts.resolveModuleName(
              l.text,
              containingFile,
              options,
              host,
              undefined,
              undefined,
              ts.ModuleKind.ESNext,
            ).resolvedModule
          : undefined,
      })),
  };
  const program = ts.createProgram({ rootNames: [...texts.keys()], options, host });
  return { program, checker: program.getTypeChecker() };
}

/** A module's path under src/, from its name in the program (undefined outside src/). */
const relOf = (fileName) => (fileName.startsWith(root) ? fileName.slice(root.length) : undefined);

/** The symbol an identifier or name stands for, aliases followed to the declaration they name. */
function resolved(checker, node) {
  let s = checker.getSymbolAtLocation(node);
  if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
  return s;
}

/**
 * The symbol of importLazily (src/lazy-import.ts), if the program has that module, and every name it goes
 * by: its own, and those an import or export clause anywhere gives it (`import { importLazily as il }`,
 * `export { importLazily as lazy }`). Only identifiers of those names are asked of the type checker, which
 * keeps the check fast; the checker then says whether the name is importLazily where it stands.
 */
function bridgeOf(program, checker) {
  const sf = program.getSourceFile(`${root}lazy-import.ts`);
  const mod = sf && checker.getSymbolAtLocation(sf);
  const symbol = mod && checker.getExportsOfModule(mod).find((s) => s.name === 'importLazily');
  if (!symbol) return undefined;
  const names = new Set([symbol.name]);
  const visit = (n) => {
    if (ts.isImportSpecifier(n) || ts.isExportSpecifier(n)) {
      if (resolved(checker, n.name) === symbol) {
        names.add(n.name.text);
        if (n.propertyName) names.add(n.propertyName.text);
      }
    } else if (ts.isImportClause(n) && n.name && resolved(checker, n.name) === symbol) names.add(n.name.text);
    if (!ts.isFunctionLike(n) && !ts.isClassLike(n)) ts.forEachChild(n, visit);
  };
  for (const f of program.getSourceFiles()) visit(f);
  return { symbol, names };
}

/** Whether an identifier is a name an import of node:module binds (`import * as m from 'node:module'`). */
function fromNodeModule(checker, id) {
  const s = checker.getSymbolAtLocation(id);
  if (!s || !(s.flags & ts.SymbolFlags.Alias)) return false;
  return (s.declarations ?? []).some((d) => {
    let n = d;
    while (n && !ts.isImportDeclaration(n)) n = n.parent;
    return !!n && isLiteral(n.moduleSpecifier) && nodeModule.has(n.moduleSpecifier.text);
  });
}

/**
 * One file of a program: its imports ({ specifier, typeOnly, how, via }, `how` being 'import' for static
 * imports and re-exports, 'import()' or 'importLazily()'; `via` the modules of src/ an imported name is
 * declared in, through re-exports) and the loading rule 3 forbids ({ kind, line }). A call counts as
 * importLazily() when the type checker says its callee is src/lazy-import.ts's importLazily, under any
 * name (`import { importLazily as il }`, `L.importLazily` of `import * as L`, a re-export, `(0, f)(…)`).
 */
function scanFile(sf, checker, bridge) {
  const imports = [];
  const loaders = [];
  const line = (n) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const loader = (kind, n) => loaders.push({ kind, line: line(n) });
  /** The modules of src/ (other than `direct`) where the names an import brings are declared. */
  const declaredIn = (names) => {
    const out = new Set();
    for (const name of names) {
      const s = resolved(checker, name);
      for (const d of s?.declarations ?? []) {
        const rel = relOf(d.getSourceFile().fileName);
        if (rel && !ts.isSourceFile(d)) out.add(rel);
      }
    }
    return [...out];
  };
  const namespaces = new Map(); // a namespace import's local symbol -> its entry in `imports`
  const lazyCall = (call, n) => {
    const [arg] = call.arguments;
    if (!isLiteral(arg)) return loader('computed importLazily()', n);
    imports.push({ specifier: arg.text, typeOnly: false, how: 'importLazily()', via: [] });
    if (nodeModule.has(arg.text)) loader('node:module', n);
  };

  const visit = (n, typed = false) => {
    typed ||= ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n);
    if (ts.isImportDeclaration(n) && isLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : [];
      // TypeScript (and esbuild) drop an import whose every name is a type
      const typeOnly =
        !!c && (c.isTypeOnly || (!c.name && named.length > 0 && named.every((e) => e.isTypeOnly)));
      const specifier = n.moduleSpecifier.text;
      const entry = { specifier, typeOnly, how: 'import', via: [] };
      imports.push(entry);
      if (nodeModule.has(specifier) && !typeOnly) loader('node:module', n);
      const values = named.filter((e) => !e.isTypeOnly).map((e) => e.name);
      const types = named.filter((e) => e.isTypeOnly).map((e) => e.name);
      entry.names = c?.isTypeOnly ? [] : [...(c?.name ? [c.name] : []), ...values];
      entry.typeNames = c?.isTypeOnly ? [...(c?.name ? [c.name] : []), ...values, ...types] : types;
      if (c?.namedBindings && ts.isNamespaceImport(c.namedBindings) && specifier.startsWith('.')) {
        const s = checker.getSymbolAtLocation(c.namedBindings.name);
        if (s) namespaces.set(s, entry);
      }
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && isLiteral(n.moduleSpecifier)) {
      const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : [];
      const typeOnly = n.isTypeOnly || (named.length > 0 && named.every((e) => e.isTypeOnly));
      const specifier = n.moduleSpecifier.text;
      imports.push({ specifier, typeOnly, how: 'import', via: [], names: [], typeNames: [] });
      if (nodeModule.has(specifier) && !typeOnly) loader('node:module', n);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      loader('import = require()', n);
    } else if (ts.isImportTypeNode(n)) {
      // typeof import('…'): a type
      const lit = n.argument;
      if (ts.isLiteralTypeNode(lit) && isLiteral(lit.literal))
        imports.push({ specifier: lit.literal.text, typeOnly: true, how: 'import', via: [] });
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = n.arguments;
      if (isLiteral(arg)) {
        imports.push({ specifier: arg.text, typeOnly: false, how: 'import()', via: [] });
        if (nodeModule.has(arg.text)) loader('node:module', n);
      } else loader('computed import()', n);
    } else if (ts.isIdentifier(n) && !typed) {
      const name = n.text;
      if (loaderNames.has(name) && !isPropertyName(n)) {
        // in any place a value can be (a call, `const r = require`, `const { createRequire } = m`, an import
        // of it), and as the name of a property read (`module.require`, `process.mainModule.require`)
        loader(name, n);
      } else if (bridge?.names.has(name) && !isDeclarationName(n)) {
        // what the name stands for, by the type checker: importLazily under any name it goes by
        const s = ts.isShorthandPropertyAssignment(n.parent)
          ? checker.getShorthandAssignmentValueSymbol(n.parent)
          : checker.getSymbolAtLocation(n);
        const target = s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
        if (target === bridge.symbol) {
          const call = callOf(n);
          if (call) lazyCall(call, n);
          else loader('importLazily as a value', n);
        }
      }
    } else if (ts.isElementAccessExpression(n)) {
      const key = n.argumentExpression;
      if (isLiteral(key)) {
        if (loaderNames.has(key.text)) loader(key.text, n);
      } else if (ts.isIdentifier(n.expression) && fromNodeModule(checker, n.expression)) {
        // `m['create' + 'Require']` of `import * as m from 'node:module'`
        loader('node:module', n);
      } else if (ts.isIdentifier(n.expression) && loaderGlobals.has(n.expression.text)) {
        // a global of the process (no declaration in src/ stands behind it)
        const s = checker.getSymbolAtLocation(n.expression);
        if (!s || !s.declarations?.some((d) => relOf(d.getSourceFile().fileName)))
          loader('computed global', n);
      }
    } else if (ts.isTypeReferenceNode(n)) {
      const name = n.typeName.getText(sf);
      if (name === 'NodeJS.Require' || name === 'NodeRequire') loader('require under another name', n);
    }
    ts.forEachChild(n, (c) => visit(c, typed));
  };
  visit(sf);
  // the modules of src/ where each imported name is declared, through re-exports (for rule 1)
  for (const entry of imports) {
    entry.via = declaredIn(entry.names ?? []);
    entry.typeVia = declaredIn(entry.typeNames ?? []);
  }
  // a namespace import's members as they are used (`L.x`), for rule 1 too
  const members = (n) => {
    if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression)) {
      const entry = namespaces.get(checker.getSymbolAtLocation(n.expression));
      if (entry) {
        const s = resolved(checker, n.name);
        for (const d of s?.declarations ?? []) {
          const rel = relOf(d.getSourceFile().fileName);
          if (rel && !entry.via.includes(rel)) (inType(n) ? entry.typeVia : entry.via).push(rel);
        }
      }
    }
    ts.forEachChild(n, members);
  };
  if (namespaces.size) members(sf);
  return { imports, loaders };
}

/** Each file of `files` ({ relPath: text }), scanned through one program (see scanFile). */
export function scanAll(files) {
  const { program, checker } = programOf(files);
  const bridge = bridgeOf(program, checker);
  const out = {};
  for (const rel of Object.keys(files))
    out[rel] = scanFile(program.getSourceFile(root + rel), checker, bridge);
  return out;
}

/** One file on its own (its imports of src/ unresolved): { imports, loaders }. */
export function scan(text, fileName = 'x.ts') {
  return scanAll({ [fileName]: text })[fileName];
}

/** Every import of one file: { specifier, typeOnly } (a specifier also imported for values is not type-only). */
export function importsOf(text) {
  const out = new Map();
  for (const { specifier, typeOnly } of scan(text).imports)
    out.set(specifier, (out.get(specifier) ?? true) && typeOnly);
  return [...out].map(([specifier, typeOnly]) => ({ specifier, typeOnly }));
}

function packageName(spec) {
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
}

/** Whether a layer's rule lists a package under `packages` or `atLoad`. */
const bans = (layer, field, pkg) =>
  (rules[layer]?.[field] ?? []).some((p) => (p instanceof RegExp ? p.test(pkg) : p === pkg));

/** The layer names the rules use that are no layer of theirs (a typo, or a layer renamed in one place). */
export function ruleErrors() {
  const known = new Set([...Object.keys(rules), 'api-no-client']);
  const out = [];
  for (const [layer, rule] of Object.entries(rules))
    for (const name of [...rule.may, ...rule.types])
      if (!known.has(name)) out.push(`rules.${layer} names "${name}", which is no layer`);
  return out;
}

/** The violations among the given files ({ relPath: text }), as readable lines. */
export function violations(files, { exceptions = loaderExceptions } = {}) {
  const out = [...ruleErrors()];
  // each module's value edges: to modules of src/ ({ to, how }) and to packages ({ pkg, specifier, how })
  const edges = new Map();
  const loads = new Map();
  const scanned = scanAll(files);
  for (const rel of Object.keys(files)) {
    const from = layerOf(rel);
    const rule = rules[from];
    const { imports, loaders } = scanned[rel];
    for (const { kind, line } of loaders)
      if (!(exceptions[rel] ?? []).includes(kind))
        out.push(
          `${rel}:${line}: ${loaderKinds[kind]}: the layer check cannot see what it loads; use import with a literal specifier, or importLazily('pkg')`,
        );
    if (!rule) {
      out.push(`${rel}: folder "${from}" has no place in the layers (docs/architecture.md)`);
      continue;
    }
    /** Rule 1 for one module of src/ that `rel` imports (`through` the module it names, for a re-export). */
    const cross = (target, typeOnly, through) => {
      const to = layerOf(target);
      if (to === from) return;
      const clientless = to === 'api' && !apiClient.test(target);
      const allowed =
        rule.may.includes(to) ||
        (clientless && rule.may.includes('api-no-client')) ||
        (typeOnly && rule.types.includes(to));
      const path = through ? `${rel} -> ${through} -> ${target}` : `${rel} -> ${target}`;
      const line = `${path}: ${from}/ may not import ${to}/${typeOnly ? ' (even for types)' : ''}`;
      if (!allowed && !out.includes(line)) out.push(line);
    };
    const modEdges = [];
    const pkgEdges = [];
    for (const { specifier, typeOnly, how, via = [], typeVia = [] } of imports) {
      if (specifier.startsWith('.')) {
        const target = relative('.', join(dirname(rel), specifier))
          .split(sep)
          .join('/')
          .replace(/\.js$/, '.ts');
        if (!typeOnly) modEdges.push({ to: target, how });
        cross(target, typeOnly, undefined);
        // a name re-exported by the module imported is held to rule 1 where it is declared
        for (const decl of via) if (decl !== target) cross(decl, false, target);
        for (const decl of typeVia) if (decl !== target) cross(decl, true, target);
      } else if (!specifier.startsWith('node:') && !typeOnly) {
        pkgEdges.push({ pkg: packageName(specifier), specifier, how });
      }
    }
    edges.set(rel, modEdges);
    loads.set(rel, pkgEdges);
  }

  // Rule 2: from each module, for each package its layer bans, a breadth-first walk over the edges the ban
  // follows (so the chain reported is a shortest one). The walk does not go on through a module, other
  // than the start, whose own layer bans the package too, on at least as many paths: that module is
  // reported for it itself.
  const loaded = new Set([...loads.values()].flat().map((e) => e.pkg));
  const arrow = (how) => (how === 'import' ? ' -> ' : ` -${how}-> `);
  const any = () => true;
  const statically = (how) => how === 'import';
  /** The line for the first chain from `start` to `pkg`, or undefined. */
  const walk = (start, pkg, atLoad) => {
    const follows = atLoad ? statically : any;
    const stopsAt = (l) => bans(l, 'packages', pkg) || (atLoad && bans(l, 'atLoad', pkg));
    const seen = new Map([[start, null]]); // module -> the edge it was reached by: { prev, how }
    const queue = [start];
    while (queue.length) {
      const m = queue.shift();
      if (m !== start && stopsAt(layerOf(m))) continue;
      // an `atLoad` ban holds for every way its own modules load the package, and for static chains
      const hit = loads.get(m).find((e) => e.pkg === pkg && (m === start || follows(e.how)));
      if (hit) {
        const hops = [];
        for (let at = m; at !== start; at = seen.get(at).prev)
          hops.unshift(`${arrow(seen.get(at).how)}${at}`);
        const when = atLoad && m !== start ? ' as it loads' : '';
        return `${start}${hops.join('')}${arrow(hit.how)}${hit.specifier}: ${layerOf(start)}/ may not load ${pkg}${when}`;
      }
      for (const { to, how } of edges.get(m))
        if (follows(how) && edges.has(to) && !seen.has(to)) {
          seen.set(to, { prev: m, how });
          queue.push(to);
        }
    }
    return undefined;
  };
  for (const start of edges.keys()) {
    const layer = layerOf(start);
    for (const pkg of loaded) {
      const line = bans(layer, 'packages', pkg)
        ? walk(start, pkg, false)
        : bans(layer, 'atLoad', pkg)
          ? walk(start, pkg, true)
          : undefined;
      if (line) out.push(line);
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
  helpOnAsk(import.meta.url);
  const dir = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src'));
  const files = readTree(dir);
  const found = violations(files);
  if (found.length) {
    console.error(
      `check-layers: ${found.length} violation(s) in ${dir}:\n${found.map((l) => `  ${l}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.error(`check-layers: ${Object.keys(files).length} modules, every import in its direction`);
}
