// What the two bundles share (scripts/bundle.js for bin/run.js, scripts/build-exe.js for the single
// executable): the packages only some commands use, and the stub for got's unused features.
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
  // phone numbers by each country's plan (flows/phones.ts): the metadata, and an example number a country
  'libphonenumber-js/min',
  'libphonenumber-js/mobile/examples',
  // the OS keyring: a native addon, which the executable keeps as an asset of its own (src/exe.ts)
  '@napi-rs/keyring',
  // SQLite (the journal): a native addon too, loaded by the commands that use a journal only
  'libsql',
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
