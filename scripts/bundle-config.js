// What the two bundles share (scripts/bundle.js for bin/run.js, scripts/build-exe.js for the single
// executable): the packages only some commands use, the stub for got's unused features, and the
// Intl.ListFormat objects of got's type checks made on first use.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Packages only some commands use. bin/run.js's bundle leaves them in node_modules; the executable keeps
 * them (all but cli-table3, which every table uses) as assets outside its snapshot.
 */
export const lazyPackages = [
  '@inquirer/prompts',
  'cli-table3',
  'conf',
  'fastify',
  '@fastify/formbody',
  '@fastify/busboy',
  'qrcode-terminal',
  // the support bundle's archive
  'tar',
  '@jmespath-community/jmespath',
  'csv-parse',
  // the batch progress bar, on a terminal only
  'cli-progress',
  // `mpay proxy`: the JSON Schema validator of the API's document
  'ajv',
  // phone numbers by each country's plan (flows/payment/phones.ts): the metadata, and an example number a country
  'libphonenumber-js/min',
  'libphonenumber-js/mobile/examples',
  // `mpay mcp`: the Model Context Protocol SDK's server, its stdio transport and its message schemas
  '@modelcontextprotocol/sdk/server/index.js',
  '@modelcontextprotocol/sdk/server/stdio.js',
  '@modelcontextprotocol/sdk/types.js',
  // the OS keyring: a native addon, which the executable keeps as an asset of its own (src/exe.ts)
  '@napi-rs/keyring',
  // SQLite (the journal and the sandbox's state): a native addon, loaded only by the commands that use one
  'libsql',
  // `mpay sandbox --tls`: the self-signed certificate (sandbox/self-signed.ts), and the Reflect polyfill it needs
  '@peculiar/x509',
  'reflect-metadata',
];

/** got's optional features that mpay never uses: see scripts/stubs/got-unused.js. */
export const stubGotUnused = {
  name: 'stub-got-unused',
  setup(b) {
    b.onResolve({ filter: /^(http2-wrapper|cacheable-request|cacheable-lookup)$/ }, () => ({
      path: join(root, 'scripts', 'stubs', 'got-unused.js'),
    }));
  },
};

/**
 * @sindresorhus/is (got's) makes two Intl.ListFormat objects as it loads: ICU objects, about 10 ms of CPU
 * on every command that calls the API (measured), only ever used to word the message of a failed type
 * check, and objects that V8 cannot put in the executable's snapshot. Each is made when first used instead.
 */
export const lazyListFormat = {
  name: 'lazy-list-format',
  setup(b) {
    b.onLoad({ filter: /@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const lazy = text.replace(
        /const (\w+) = new Intl\.ListFormat\(([^;]*)\);/g,
        'const $1 = { format: (v) => new Intl.ListFormat($2).format(v) };',
      );
      if (lazy === text)
        throw new Error('bundle: @sindresorhus/is no longer makes Intl.ListFormat objects as it loads');
      return { contents: lazy, loader: 'js' };
    });
  },
};
