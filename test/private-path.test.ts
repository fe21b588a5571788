// The rule of every file and folder mpay keeps (common/private-path.ts), in this process, for every mode a
// group or other users could write through, not only 0777: refused (exit 9, nothing read or written),
// naming who can write it and the chmod that mends it; one others can only read is set back, with a warning.
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalFileError } from '../src/common/errors.js';
import { requirePrivate } from '../src/common/private-path.js';
import { tempDir } from './helpers.js';

const refusal = (path: string, kind: 'folder' | 'file') => {
  try {
    requirePrivate(path, kind, 'config');
  } catch (err) {
    return err as LocalFileError;
  }
  return undefined;
};

describe.skipIf(process.platform === 'win32')('requirePrivate', () => {
  it('refuses a folder its group can write (0770, 0775, 0720, 0730, 0760) or others can (0707, 0703, 0777)', () => {
    const cases: [number, string][] = [
      [0o770, 'its group'],
      [0o775, 'its group'],
      [0o720, 'its group'],
      [0o730, 'its group'],
      [0o760, 'its group'],
      [0o707, 'other users'],
      [0o703, 'other users'],
      [0o777, 'other users'],
    ];
    for (const [mode, who] of cases) {
      const dir = join(tempDir(), 'cfg');
      mkdirSync(dir);
      chmodSync(dir, mode);
      const e = refusal(dir, 'folder');
      expect(e, mode.toString(8)).toBeInstanceOf(LocalFileError);
      expect(e!.exitCode).toBe(9);
      expect(e!.message).toBe(
        `The config folder ${dir} is writable by ${who} (mode ${mode.toString(8)}); mpay will not read or write it`,
      );
      expect(e!.hint).toBe(`Check what is in it, then: chmod 700 '${dir}'`);
      // refused, not mended: the mode is the user's to change, once they have looked
      expect(statSync(dir).mode & 0o777).toBe(mode);
    }
  });

  it('refuses a file its group or others can write (0660, 0620, 0664, 0602, 0666)', () => {
    for (const mode of [0o660, 0o620, 0o664, 0o602, 0o666]) {
      const file = join(tempDir(), 'config.json');
      writeFileSync(file, '{}');
      chmodSync(file, mode);
      const e = refusal(file, 'file');
      expect(e?.message, mode.toString(8)).toMatch(/is writable by (its group|other users)/);
      expect(e!.hint).toBe(`Check what is in it, then: chmod 600 '${file}'`);
    }
  });

  it('sets back a folder or file others can only read (0750, 0755, 0711; 0640, 0644, 0604), with a warning', () => {
    for (const mode of [0o750, 0o755, 0o711]) {
      const dir = join(tempDir(), 'cfg');
      mkdirSync(dir);
      chmodSync(dir, mode);
      expect(requirePrivate(dir, 'folder', 'config')).toBe(
        `${dir} was mode ${mode.toString(8)}; set it to 700 since it holds credentials`,
      );
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
    for (const mode of [0o640, 0o644, 0o604]) {
      const file = join(tempDir(), 'journal.jsonl');
      writeFileSync(file, '');
      chmodSync(file, mode);
      expect(requirePrivate(file, 'file', 'journal')).toBe(
        `${file} was mode ${mode.toString(8)}; set it to 600 since it holds mpay's records`,
      );
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
  });

  it('passes a private one (0700, 0500; 0600, 0400) and a path that is not there, untouched', () => {
    for (const mode of [0o700, 0o500]) {
      const dir = join(tempDir(), 'cfg');
      mkdirSync(dir);
      chmodSync(dir, mode);
      expect(requirePrivate(dir, 'folder', 'config')).toBeUndefined();
      expect(statSync(dir).mode & 0o777).toBe(mode);
    }
    for (const mode of [0o600, 0o400]) {
      const file = join(tempDir(), 'f');
      writeFileSync(file, '');
      chmodSync(file, mode);
      expect(requirePrivate(file, 'file', 'config')).toBeUndefined();
    }
    expect(requirePrivate(join(tempDir(), 'absent'), 'file', 'config')).toBeUndefined();
  });
});
