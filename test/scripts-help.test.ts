// Every script of scripts/ that reads flags names how to run it in its header comment, which --help
// prints (scripts/script-help.js); the process tier runs each one's --help.
import { expect, it } from 'vitest';
import { header, readingFlags } from './script-headers.js';

it('the scripts that read flags are the ones known, each with a header that says how to run it', () => {
  expect(readingFlags).toEqual([
    'bench-ab.js',
    'bench-gate.js',
    'bench-inputs.js',
    'bench-journal.js',
    'bench-keyring.js',
    'bench-sandbox-store.js',
    'bench-sandbox.js',
    'bench-signal.js',
    'bench-startup.js',
    'bench.js',
    'build-exe.js',
    'check-layers.js',
    'commands-doc.js',
    'figures.js',
    'json-schemas.js',
  ]);
  for (const f of readingFlags) expect(header(f), f).toMatch(/(node scripts\/|npm run )[\w.:-]+/);
});
