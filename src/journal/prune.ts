// A prune's rewrite of the journal file (journal.ts prune()): every line but those of the transactions
// `gone` names, written to a new file that replaces the old one atomically, and the lines other mpay
// processes append meanwhile carried over (see prune() for when).
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, fstatSync, renameSync, writeSync } from 'node:fs';
import { readBytes, readRange, wholeLines } from './bytes.js';
import { isEvent } from './records.js';

const chunk = 1024 * 1024;

export function rewriteWithout(
  file: string,
  gone: Set<string>,
  hooks: { beforeRename?: () => void; afterRename?: () => void },
  unwritable: (err: unknown) => Error,
): void {
  const old = openSync(file, 'r');
  try {
    let read = fstatSync(old).size;
    const kept = (line: string) => {
      if (!line.trim()) return false;
      try {
        const e: unknown = JSON.parse(line);
        return !(isEvent(e) && gone.has(e.reference));
      } catch {
        return true;
      }
    };
    // Exclusive, of a random name: never through a link planted beside the journal.
    const tmp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
    try {
      const fd = openSync(tmp, 'wx', 0o600);
      try {
        copyKept(old, read, fd, kept);
        hooks.beforeRename?.();
        // Appended while the kept lines were being written: every one stays.
        const size = fstatSync(old).size;
        if (size > read) writeSync(fd, wholeLines(readRange(old, read, size)));
        read = size;
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch (err) {
      throw unwritable(err);
    }
    hooks.afterRename?.();
    // A writer that opened the old file before the rename wrote there: carry its lines over.
    const size = fstatSync(old).size;
    if (size > read) {
      const fd = openSync(file, 'a', 0o600);
      try {
        writeSync(fd, wholeLines(readRange(old, read, size)));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  } finally {
    closeSync(old);
  }
}

/**
 * The lines of `from`'s first `size` bytes that `kept` keeps, written to `to`: a chunk at a time, as the
 * journal may be larger than the memory mpay should take, cut at newline bytes, never inside a character.
 */
function copyKept(from: number, size: number, to: number, kept: (line: string) => boolean): void {
  let carry = Buffer.alloc(0);
  for (let at = 0; at < size; at += chunk) {
    const buf = Buffer.concat([carry, readBytes(from, at, Math.min(size, at + chunk))]);
    const end = buf.lastIndexOf(0x0a);
    carry = end < 0 ? buf : buf.subarray(end + 1);
    const out = (end < 0 ? [] : buf.toString('utf8', 0, end).split('\n')).filter(kept);
    if (out.length) writeSync(to, `${out.join('\n')}\n`);
  }
  const last = carry.toString('utf8');
  if (last && kept(last)) writeSync(to, `${last}\n`);
}
