// The log's lines as mpay reads them: split from bytes (whole lines only, each with its offset), the one
// at an offset, and all of them from the end back (log-view.ts). A line that is not an event is kept with
// its text, for its warning.
import { closeSync, openSync } from 'node:fs';
import { readBytes, readInto } from './bytes.js';
import { isEvent, type JournalEvent } from './records.js';

/** A line of the log: where it starts, and the event on it (undefined: not an event). */
export interface LogLine {
  offset: number;
  event?: JournalEvent;
  text: string;
}

/**
 * The whole lines of a buffer read at `start`: each with its offset, and the bytes they take. `lean` keeps
 * of an event line only what the index needs (its reference and hash token), not its text, and finds
 * them in the bytes of a line as mpay writes it, without parsing it whole (building the index of a large
 * journal is mostly this); a line of another shape is parsed.
 */
export function splitLines(
  buf: Buffer,
  start: number,
  opts: { lean?: boolean } = {},
): { lines: LogLine[]; used: number } {
  const lines: LogLine[] = [];
  let at = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, at);
    if (nl < 0) break;
    const quick = opts.lean ? leanEvent(buf, at, nl) : undefined;
    if (quick) lines.push({ offset: start + at, text: '', event: quick });
    else {
      const text = buf.toString('utf8', at, nl);
      const event = parse(text);
      lines.push(
        opts.lean && event
          ? {
              offset: start + at,
              text: '',
              event: { reference: event.reference, hash_token: event.hash_token } as JournalEvent,
            }
          : // the text is kept for a line that is not an event (its warning), not for the others
            { offset: start + at, text: event ? '' : text, event },
      );
    }
    at = nl + 1;
  }
  return { lines, used: at };
}

const keyBytes = {
  reference: Buffer.from('"reference":"'),
  hash: Buffer.from('"hash_token":"'),
  kinds: [Buffer.from('"kind":"deposit"'), Buffer.from('"kind":"withdraw"')],
  step: Buffer.from('"step":"'),
  outcome: Buffer.from('"outcome":"'),
  at: Buffer.from('{"at":"'),
};

/**
 * The reference and hash token of a line as JSON.stringify writes mpay's events (`{"at":"…","reference":
 * "…","kind":…}`), read from its bytes; undefined for any other line, which is then parsed.
 */
function leanEvent(buf: Buffer, start: number, end: number): JournalEvent | undefined {
  if (buf[end - 1] !== 0x7d || buf.indexOf(keyBytes.at, start) !== start) return undefined;
  const line = buf.subarray(start, end);
  if (
    !keyBytes.kinds.some((k) => line.includes(k)) ||
    !line.includes(keyBytes.step) ||
    !line.includes(keyBytes.outcome)
  )
    return undefined;
  const reference = stringAfter(line, keyBytes.reference);
  if (reference === undefined) return undefined;
  const hash = line.includes(keyBytes.hash) ? stringAfter(line, keyBytes.hash) : undefined;
  return { reference, ...(hash === undefined ? {} : { hash_token: hash }) } as JournalEvent;
}

/** The JSON string value that follows the first `key` in a line (ending at its first unescaped quote). */
function stringAfter(line: Buffer, key: Buffer): string | undefined {
  const from = line.indexOf(key);
  if (from < 0) return undefined;
  const begin = from + key.length;
  let escaped = false;
  for (let i = begin; i < line.length; i++) {
    const b = line[i];
    if (b === 0x5c) escaped = true;
    else if (b === 0x22) {
      const raw = line.toString('utf8', begin, i);
      if (!escaped) return raw;
      // an escaped quote is not the end: a value with escapes is left to JSON.parse, as a whole
      if (line[i - 1] === 0x5c) return undefined;
      try {
        return JSON.parse(`"${raw}"`) as string;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function parse(text: string): JournalEvent | undefined {
  if (!text.trim()) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isEvent(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The line that starts at `offset` of an open file. */
export function lineAt(fd: number, offset: number): LogLine {
  let size = 4096;
  for (;;) {
    const buf = readBytes(fd, offset, offset + size);
    const nl = buf.indexOf(0x0a);
    if (nl >= 0 || buf.length < size) {
      const { lines } = splitLines(
        Buffer.concat([buf.subarray(0, nl < 0 ? buf.length : nl), Buffer.from('\n')]),
        offset,
      );
      return lines[0]!;
    }
    size *= 4;
  }
}

/**
 * The event lines of a log from its end back to its start: first the tail's (in memory, from `tailStart`),
 * then the file's before it, read backwards a chunk at a time. Damaged lines are reported and passed over.
 */
export function* backwards(
  file: string,
  tailStart: number,
  tail: LogLine[],
  damaged: (offset: number) => void,
): Generator<LogLine> {
  for (let i = tail.length - 1; i >= 0; i--) if (tail[i]!.event) yield tail[i]!;
  if (tailStart === 0) return;
  const fd = openSync(file, 'r');
  try {
    // Two buffers for the whole walk, not two a chunk: a long walk (history --all) then leaves no trail
    // of freed chunks for the allocator to keep.
    let work = Buffer.allocUnsafe(backChunk * 2);
    let carry = Buffer.allocUnsafe(backChunk);
    let carryLength = 0;
    let end = tailStart;
    while (end > 0) {
      const start = Math.max(0, end - backChunk);
      if (work.length < end - start + carryLength) work = Buffer.allocUnsafe((end - start + carryLength) * 2);
      const got = readInto(fd, work, start, end);
      carry.copy(work, got, 0, carryLength);
      const view = work.subarray(0, got + carryLength);
      // The first bytes of a chunk may be the end of a line that starts in the chunk before.
      const cut = start === 0 ? 0 : view.indexOf(0x0a) + 1;
      const { lines } = splitLines(view.subarray(cut), start + cut);
      // a line longer than a chunk: keep reading back
      const keep = cut === 0 && start > 0 ? view.length : cut;
      if (carry.length < keep) carry = Buffer.allocUnsafe(keep * 2);
      view.copy(carry, 0, 0, keep);
      carryLength = keep;
      end = start;
      for (let i = lines.length - 1; i >= 0; i--) {
        const l = lines[i]!;
        if (l.event) yield l;
        else if (l.text.trim()) damaged(l.offset);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** How much of the log a backward walk reads at a time. */
export const backChunk = 64 * 1024;
