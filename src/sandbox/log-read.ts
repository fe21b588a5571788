// Reading the sandbox's data log (data-log.ts writes it): the header line, then each record line handed
// over in order, parsed a few thousand at a time. A start may resume after the header at a place a snapshot
// covers (snapshot.ts), reading only the lines after it.
import { closeSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { DataFileError, formatVersion, headerKey, type Line } from './data-log.js';

export interface Loaded {
  /** the secret the derived values of this file's transactions come from (hex) */
  secret: string;
  /** a whole-state file of version 1 (today's sandbox before this log): converted by the caller */
  v1?: Record<string, unknown>;
  /** what was recovered: a cut last line dropped */
  recovered?: string;
  /** lines read (the header included), counted from the file's start */
  lines: number;
}

/** Where to go on after the header: a byte offset at the start of a line, and the lines before it. */
export interface Resume {
  offset: number;
  lines: number;
}

/** The header line as read: the secret, and the line's own text (a snapshot is tied to it). */
export interface Header {
  secret: string;
  text: string;
}

const chunkBytes = 64 * 2 ** 20;

/**
 * Reads a data file, handing each record line to `apply` in order; `onHeader` may say where to resume.
 * Undefined when there is no file (or an empty one). Throws DataFileError for a file that is not one, of
 * another version, or damaged before its last line.
 */
export function readLog(
  file: string,
  apply: (line: Line) => void,
  onHeader: (header: Header) => Resume | undefined,
): Loaded | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return new LogReader(file, fd, apply, onHeader).read();
  } finally {
    closeSync(fd);
  }
}

class LogReader {
  /** file offset of buf[0], and of the next read */
  private pos = 0;
  private readAt = 0;
  private buf = Buffer.alloc(0);
  private lineNo = 0;
  private header?: Record<string, unknown>;
  private readonly chunk = Buffer.allocUnsafe(chunkBytes);
  private readonly batch: Batch;

  constructor(
    private readonly file: string,
    private readonly fd: number,
    apply: (line: Line) => void,
    private readonly onHeader: (header: Header) => Resume | undefined,
  ) {
    this.batch = new Batch(file, apply);
  }

  read(): Loaded | undefined {
    for (;;) {
      const v1 = this.wholeLines();
      if (v1) return v1;
      if (!this.more()) break;
    }
    let recovered: string | undefined;
    if (this.buf.length > 0) {
      const last = this.lastLine();
      if (typeof last === 'object') return last;
      recovered = last;
    }
    if (!this.header) return undefined; // an empty file
    return { secret: String(this.header.secret), recovered, lines: this.lineNo };
  }

  /** Reads on into buf: false at the end of the file. */
  private more(): boolean {
    // the header line first, alone: a start that resumes after it reads nothing more before its place
    const n = readSync(this.fd, this.chunk, 0, this.header ? chunkBytes : 64 * 1024, this.readAt);
    if (n === 0) return false;
    this.readAt += n;
    const got = this.chunk.subarray(0, n);
    this.buf = this.buf.length ? Buffer.concat([this.buf, got]) : Buffer.from(got);
    return true;
  }

  /** The header line read: a version 1 file's Loaded, or whether reading resumes elsewhere. */
  private headerLine(text: string): Loaded | boolean {
    this.header = headerOf(this.file, text, this.lineNo);
    if ('v1' in this.header) return { secret: '', v1: this.header.v1 as Record<string, unknown>, lines: 1 };
    const resume = this.onHeader({ secret: String(this.header.secret), text });
    if (!resume) return false;
    this.buf = Buffer.alloc(0);
    this.pos = this.readAt = resume.offset;
    this.lineNo = resume.lines;
    return true;
  }

  /** Hands over the whole lines in buf, keeping the rest; a version 1 file's Loaded when it is one. */
  private wholeLines(): Loaded | undefined {
    let start = 0;
    for (let nl = this.buf.indexOf(10); nl >= 0; nl = this.buf.indexOf(10, start)) {
      this.lineNo++;
      const text = this.buf.toString('utf8', start, nl);
      const lineStart = start;
      start = nl + 1;
      if (this.header) {
        this.batch.add(text, this.lineNo, this.pos + lineStart);
        continue;
      }
      const header = this.headerLine(text);
      if (typeof header === 'object') return header;
      if (header) return undefined; // resumed: buf is empty, the next read is at the new place
    }
    this.batch.flush();
    this.buf = this.buf.subarray(start);
    this.pos += start;
    return undefined;
  }

  /**
   * The last line has no newline: whole (a kill between its bytes and its newline cannot happen, since a
   * group is one write, but a file edited by hand can end so), or cut by an interrupted write, which is
   * dropped and the file cut back: what was recovered, or a version 1 file's Loaded.
   */
  private lastLine(): Loaded | string | undefined {
    const { fd, buf, pos } = this;
    this.lineNo++;
    const text = buf.toString('utf8');
    if (!this.header) {
      if (pos !== 0 || this.lineNo !== 1) return undefined;
      const header = this.headerLine(text);
      if (typeof header === 'object') return header;
      writeSync(fd, '\n', pos + buf.length);
      return undefined;
    }
    let whole = true;
    try {
      applyLine(this.file, text, this.lineNo, pos, this.batch.apply);
    } catch {
      whole = false;
    }
    if (whole) {
      writeSync(fd, '\n', pos + buf.length);
      return undefined;
    }
    ftruncateSync(fd, pos);
    fsyncSync(fd);
    return `line ${this.lineNo} (byte ${pos}), cut by an interrupted write (${buf.length} bytes), was dropped`;
  }
}

function headerOf(file: string, text: string, lineNo: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DataFileError(file, `line ${lineNo} (byte 0)`, 'not a sandbox data file (no header line)');
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (headerKey in o) {
      if (o[headerKey] !== formatVersion)
        throw new DataFileError(
          file,
          `line ${lineNo} (byte 0)`,
          `a sandbox data file of format ${JSON.stringify(o[headerKey])}, which this mpay does not read (it reads format ${formatVersion}, and converts format 1)`,
        );
      if (typeof o.secret !== 'string' || !/^[0-9a-f]{64}$/.test(o.secret))
        throw new DataFileError(file, `line ${lineNo} (byte 0)`, 'the header line has no valid secret');
      return o;
    }
    if (o.version === 1 && Array.isArray(o.transactions)) return { v1: o };
    if ('version' in o)
      throw new DataFileError(
        file,
        `line ${lineNo} (byte 0)`,
        `a sandbox data file of version ${JSON.stringify(o.version)}, which this mpay does not read (it reads format ${formatVersion}, and converts version 1)`,
      );
  }
  throw new DataFileError(file, `line ${lineNo} (byte 0)`, 'not a sandbox data file (no header line)');
}

/**
 * Lines parsed a few thousand at a time, as one JSON array: far fewer calls than one a line. A batch that
 * does not parse to one record a line is parsed again line by line, which names the damaged one.
 */
class Batch {
  private texts: string[] = [];
  private where: number[] = [];
  constructor(
    private readonly file: string,
    readonly apply: (line: Line) => void,
  ) {}

  add(text: string, lineNo: number, byte: number): void {
    this.texts.push(text);
    this.where.push(lineNo, byte);
    if (this.texts.length === 4096) this.flush();
  }

  flush(): void {
    const { texts, where } = this;
    if (texts.length === 0) return;
    this.texts = [];
    this.where = [];
    let values: unknown;
    try {
      values = JSON.parse(`[${texts.join(',')}]`);
    } catch {
      values = undefined;
    }
    if (!Array.isArray(values) || values.length !== texts.length) {
      texts.forEach((t, k) => applyLine(this.file, t, where[2 * k]!, where[2 * k + 1]!, this.apply));
      return;
    }
    values.forEach((value, k) => applyValue(this.file, value, where[2 * k]!, where[2 * k + 1]!, this.apply));
  }
}

function applyLine(file: string, text: string, lineNo: number, byte: number, apply: (line: Line) => void) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DataFileError(file, `line ${lineNo} (byte ${byte})`, 'not a record (damaged or not JSON)');
  }
  applyValue(file, value, lineNo, byte, apply);
}

function applyValue(file: string, value: unknown, lineNo: number, byte: number, apply: (line: Line) => void) {
  if (!Array.isArray(value) || typeof value[0] !== 'string')
    throw new DataFileError(file, `line ${lineNo} (byte ${byte})`, 'not a record of the sandbox');
  try {
    apply(value);
  } catch (err) {
    throw new DataFileError(file, `line ${lineNo} (byte ${byte})`, (err as Error).message);
  }
}
