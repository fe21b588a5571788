// The journal's index (issue: a journal that grows). Journals of thousands of synthetic transactions,
// written as today's mpay writes them (scripts/journal-synth.js: two seeds, two places, lines without a
// place, withdrawals with codes), are read through the index and compared with a plain read of every
// line; the index is damaged in each way a crash or a hand can damage it, and must be rebuilt or passed
// over, never believed; and the CLI, on a journal of an mpay without the index, lists newest first and
// builds the index on its first read.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeJournal } from '../scripts/journal-synth.js';
import { builtExe } from './exe.js';
import { run, tempDir } from './helpers.js';

// Built (or found up to date) while the tests before its own run.
const exeBuilt = builtExe();

describe('the single executable on an indexed journal', () => {
  // a deadline long enough for a build of the executable that has not ended by then (test/exe.ts)
  it('builds and reads the index as bin/run.js does', { timeout: 180_000 }, async () => {
    const cfg = tempDir();
    const { refs } = writeJournal(join(cfg, 'journal', 'default.sandbox.jsonl'), { count: 2500, seed: 23 });
    const exe = await exeBuilt;
    const page = await run(['history', '--limit', '3', '--json'], {
      command: [exe],
      env: { MPAY_CONFIG_DIR: cfg },
    });
    expect(page.code, page.stderr).toBe(0);
    expect(page.json().map((r: { reference: string }) => r.reference)).toEqual(refs.slice(-3).reverse());
    expect(existsSync(join(cfg, 'journal', 'index', 'default.sandbox.jsonl', 'state.json'))).toBe(true);
    const show = await run(['history', 'show', refs[7]!, '--json'], {
      command: [exe],
      env: { MPAY_CONFIG_DIR: cfg },
    });
    expect(show.json().reference).toBe(refs[7]);
  });
});
