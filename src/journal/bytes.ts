// Byte ranges of an open journal file: what the index refresh and the prune read.
import { readSync } from 'node:fs';

/** The bytes [start, end) of an open file (fewer if it ends sooner). */
export function readBytes(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.alloc(end - start);
  return buf.subarray(0, readInto(fd, buf, start, end));
}

/** Reads the bytes [start, end) of an open file into the start of `buf`; how many it read. */
export function readInto(fd: number, buf: Buffer, start: number, end: number): number {
  let at = 0;
  while (at < end - start) {
    const n = readSync(fd, buf, at, end - start - at, start + at);
    if (n === 0) break;
    at += n;
  }
  return at;
}

/** The bytes [start, end) of an open file, as text. */
export function readRange(fd: number, start: number, end: number): string {
  return readBytes(fd, start, end).toString('utf8');
}

/** Text ending in a newline, so that the next line appended starts on a line of its own. */
export function wholeLines(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/** FNV-1a over bytes, continued from `h` (so an append continues the sum of what was there). */
export function fnv(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
