// Byte ranges of an open journal file: what the index refresh and the prune read.
import { readSync } from 'node:fs';

/** The bytes [start, end) of an open file (fewer if it ends sooner). */
export function readBytes(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.alloc(end - start);
  let at = 0;
  while (at < buf.length) {
    const n = readSync(fd, buf, at, buf.length - at, start + at);
    if (n === 0) break;
    at += n;
  }
  return buf.subarray(0, at);
}

/** The bytes [start, end) of an open file, as text. */
export function readRange(fd: number, start: number, end: number): string {
  return readBytes(fd, start, end).toString('utf8');
}

/** Text ending in a newline, so that the next line appended starts on a line of its own. */
export function wholeLines(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
