// The journal's file as another process, a crash or another user finds it (journal/journal.ts): made
// private (0600, whatever the umask lets through), no secret in any record whatever a caller passes, and
// each line written and flushed to the disk before append() returns. Told through what append() leaves
// behind, so that it holds for any storage of the journal.
import fs, { readFileSync, statSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalFileError } from '../src/common/errors.js';
import { Journal } from '../src/journal/journal.js';
import { tempDir } from './helpers.js';

const event = (reference: string, data?: Record<string, unknown>) => ({
  reference,
  kind: 'withdraw' as const,
  step: 'processed' as const,
  outcome: 'ok' as const,
  data,
});

/** Every line of every file under the journal folder: what a reader of the disk finds. */
function onDisk(j: Journal): string {
  return readFileSync(j.file, 'utf8');
}

describe('the journal file', () => {
  it('is made 0600 and its folder 0700, even under a umask that lets others read (022, 002, 000)', () => {
    // (A worker thread, as Stryker's runner uses, cannot set the umask: there, the one it has.)
    for (const mask of isMainThread ? [0o022, 0o002, 0o000] : [process.umask()]) {
      const before = isMainThread ? process.umask(mask) : mask;
      try {
        const j = new Journal(tempDir(), 'default', 'sandbox');
        j.append(event('mode-1'));
        expect((statSync(j.file).mode & 0o777).toString(8), `umask ${mask.toString(8)}`).toBe('600');
        expect((statSync(j.dir).mode & 0o777).toString(8), `umask ${mask.toString(8)}`).toBe('700');
      } finally {
        if (isMainThread) process.umask(before);
      }
    }
  });
});

describe('the journal folder', () => {
  it('is refused before anything is written when its group or others can write it (0770, 0775, 0720, 0730, 0707, 0777)', () => {
    for (const mode of [0o770, 0o775, 0o720, 0o730, 0o707, 0o777]) {
      const cfg = tempDir();
      const j = new Journal(cfg, 'default', 'sandbox');
      j.append(event('group-0'));
      fs.chmodSync(j.dir, mode);
      const before = onDisk(j);
      const err = (() => {
        try {
          j.append(event('group-1'));
        } catch (e) {
          return e as LocalFileError;
        }
      })();
      expect(err, mode.toString(8)).toBeInstanceOf(LocalFileError);
      expect(err!.message).toMatch(
        new RegExp(
          `^The journal folder ${j.dir} is writable by (its group|other users) \\(mode ${mode.toString(8)}\\)`,
        ),
      );
      // the rule's own refusal, not a write error wrapped around it
      expect(err!.hint).toBe(`Check what is in it, then: chmod 700 '${j.dir}'`);
      expect(onDisk(j), mode.toString(8)).toBe(before);
      expect(() => new Journal(cfg, 'default', 'sandbox'), mode.toString(8)).toThrow(/is writable by/);
    }
  });

  it('a folder others can only read is set back to 0700 by a journal told no warning too', () => {
    const cfg = tempDir();
    new Journal(cfg, 'default', 'sandbox').append(event('quiet-0'));
    fs.chmodSync(join(cfg, 'journal'), 0o755);
    const j = new Journal(cfg, 'default', 'sandbox');
    expect((statSync(j.dir).mode & 0o777).toString(8)).toBe('700');
    j.append(event('quiet-1'));
    expect(j.events().map((e) => e.reference)).toEqual(['quiet-0', 'quiet-1']);
  });

  it('a folder others can only read (0750, 0755, 0711) is set back to 0700, with a warning', () => {
    for (const mode of [0o750, 0o755, 0o711]) {
      const cfg = tempDir();
      new Journal(cfg, 'default', 'sandbox').append(event('read-0'));
      const dir = join(cfg, 'journal');
      fs.chmodSync(dir, mode);
      const warnings: string[] = [];
      new Journal(cfg, 'default', 'sandbox', { warn: (w) => void warnings.push(w) });
      expect(warnings.join('\n'), mode.toString(8)).toContain(
        `${dir} was mode ${mode.toString(8)}; set it to 700`,
      );
      expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    }
  });
});
