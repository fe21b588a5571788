// The suite's own shape (docs/development.md): two tiers, and files named by what they cover.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './helpers.js';

describe('the test tiers', () => {
  it('the quick tier starts no process: every way to start one throws, naming the tier to move to', () => {
    expect(() => spawn(process.execPath, ['-e', '0'])).toThrow(
      /quick tier starts no process.*\.process\.test\.ts/,
    );
    expect(() => spawnSync('true')).toThrow(/child_process\.spawnSync of true/);
  });

  it('no test file is named by a round, a trial or a date, and every one is in a tier', () => {
    const files = readdirSync(join(root, 'test')).filter((f) => f.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((f) => /round|trial|findings|\d{4}-?\d{2}/i.test(f))).toEqual([]);
    // a *.process.test.ts name is the process tier's; any other *.test.ts is the quick tier's
    expect(files.filter((f) => /\.process\./.test(f) && !f.endsWith('.process.test.ts'))).toEqual([]);
  });
});
