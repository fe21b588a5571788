// The figures of docs/development.md (what a fresh clone's `.ci/run` costs, start-up and the sandbox's
// throughput) come from measurements (scripts/figures.js, `npm run figures`), never from a hand edit.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { root, tempDir } from './helpers.js';

// Skipped only inside `npm run figures` (scripts/figures.js measure sets the variable): the run being
// measured cannot already be described by the figures it is measuring.
it.skipIf(process.env.MPAY_MEASURING_FIGURES === '1')(
  "docs/development.md's figures are those the last measurements wrote (bench/*.json), not a hand edit",
  async () => {
    const run = (readme?: string) =>
      promisify(execFile)(process.execPath, [
        join(root, 'scripts', 'figures.js'),
        'check',
        ...(readme ? [readme] : []),
      ])
        .then(() => 0)
        .catch((err: { code: number }) => err.code);
    expect(await run()).toBe(0);
    // a figure changed by hand is caught
    const edited = join(tempDir(), 'development.md');
    const readme = readFileSync(join(root, 'docs', 'development.md'), 'utf8');
    const changed = readme.replace(/ran (\d+) tests/, (_, n: string) => `ran ${Number(n) + 1} tests`);
    expect(changed).not.toBe(readme);
    writeFileSync(edited, changed);
    expect(await run(edited)).toBe(1);
  },
);
