// The sandbox's files on disk (the --data log, its snapshot): written beside themselves under a temporary
// name, then renamed over, with the folder fsync'd so that the rename itself survives a power cut.
import { closeSync, fsyncSync, openSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** A new temporary name beside `file` (".FILE.RANDOM.tmp"). */
export const tempBeside = (file: string): string =>
  join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);

/**
 * Removes the temporary files a kill left beside `file` (a compaction's or a snapshot's, by the names
 * tempBeside gives): the names of every one it removed.
 */
export function removeLeftovers(file: string): string[] {
  const prefix = `.${basename(file)}.`;
  const left: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return left;
  }
  for (const name of names) {
    const kind = name.startsWith(prefix) ? name.slice(prefix.length) : '';
    if (/^(snapshot\.)?[0-9a-f]{12}\.tmp$/.test(kind)) {
      rmSync(join(dirname(file), name), { force: true });
      left.push(name);
    }
  }
  return left;
}

export function syncFolder(file: string): void {
  try {
    const d = openSync(dirname(file), 'r');
    try {
      fsyncSync(d);
    } finally {
      closeSync(d);
    }
  } catch {
    // not every platform opens a folder (Windows); the rename is still atomic
  }
}
