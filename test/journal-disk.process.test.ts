// The journal on a disk that refuses what it is asked (journal/database.ts), run in this process: a
// read-only file system, a full one, a FIFO where the file should be. Each is refused, exit 9, naming the
// journal, and the records already there stay. A process test only for the helpers it starts (mount,
// mkfifo): the journal runs here, and no mpay is spawned. The tmpfs are mounted as root; elsewhere these
// are skipped.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalFileError } from '../src/common/errors.js';
import { Journal } from '../src/journal/journal.js';
import { isRoot, tempDir, thrown } from './helpers.js';

const mounts: string[] = [];
// Lazily: the journal's connection stays open in this process until it ends.
afterEach(() => {
  for (const dir of mounts.splice(0)) execFileSync('umount', ['--lazy', dir]);
});

/** A tmpfs (0700) mounted at `dir` for this test, or false where none can be (not root, no mount). */
function tmpfs(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `mode=0700,${options}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch {
    return false;
  }
  mounts.push(dir);
  return true;
}

/** Whether a tmpfs can be mounted here (tried once, and taken down). */
const canMount = ((probe) => {
  if (!isRoot || !tmpfs(probe, 'size=64k')) return false;
  execFileSync('umount', [mounts.pop()!]);
  return true;
})(tempDir());

const event = (reference: string) => ({
  reference,
  kind: 'deposit' as const,
  step: 'initiate' as const,
  outcome: 'sent' as const,
});

describe('a journal folder on a disk that refuses writes', () => {
  it.skipIf(!canMount)(
    'read-only: the first write is refused, exit 9, naming the journal and the error; a read finds no journal',
    () => {
      const cfg = tempDir();
      const j = new Journal(cfg, 'default', 'sandbox');
      expect(tmpfs(j.dir, 'size=64k')).toBe(true);
      execFileSync('mount', ['-o', 'remount,ro', j.dir]);
      const err = thrown(() => j.append(event('ro-1')));
      expect(err).toBeInstanceOf(LocalFileError);
      expect(err).toMatchObject({
        exitCode: 9,
        message: `Cannot write the journal ${j.file} (EROFS)`,
        hint: 'Free disk space or make the folder writable: mpay records every money-moving request before it sends it',
      });
      expect(j.events()).toEqual([]);
      expect(readdirSync(j.dir)).toEqual([]);
    },
  );

  it.skipIf(!canMount)(
    'full: the write is refused, exit 9, saying to free disk space; the records there stay, and once there is room the next goes',
    () => {
      const cfg = tempDir();
      const j = new Journal(cfg, 'default', 'sandbox');
      expect(tmpfs(j.dir, 'size=256k')).toBe(true);
      j.append(event('full-1'));
      const filler = join(j.dir, 'filler');
      try {
        for (;;) appendFileSync(filler, Buffer.alloc(4096));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      const err = thrown(() => j.append(event('full-2')));
      expect(err).toBeInstanceOf(LocalFileError);
      expect(err).toMatchObject({
        exitCode: 9,
        message: `Cannot write the journal ${j.file} (SQLITE_FULL)`,
        hint: 'Free disk space or make the folder writable: mpay records every money-moving request before it sends it',
      });
      expect(j.events().map((e) => e.reference)).toEqual(['full-1']);
      rmSync(filler);
      j.append(event('full-3'));
      expect(j.events().map((e) => e.reference)).toEqual(['full-1', 'full-3']);
    },
  );
});

it('a FIFO where the journal file should be is refused for a read and a write, without waiting on it', () => {
  const cfg = tempDir();
  const j = new Journal(cfg, 'default', 'sandbox');
  mkdirSync(j.dir, { mode: 0o700 });
  execFileSync('mkfifo', ['-m', '600', j.file]);
  for (const use of [() => j.events(), () => j.append(event('fifo-1'))]) {
    const err = thrown(use);
    expect(err).toBeInstanceOf(LocalFileError);
    expect(err).toMatchObject({
      exitCode: 9,
      message: `The journal file ${j.file} is not a file; mpay will not read or write it`,
    });
  }
  expect(readdirSync(j.dir)).toEqual(['journal.db']);
});
