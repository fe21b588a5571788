// The sandbox's state on disk (--data): an append-only log of its changes, one JSON line each, after a
// header line naming the format. A change costs the write of its own line, not of the whole state.
//
// Schedule: lines are written in groups (group commit): the changes of one turn of the event loop make a
// group, one write and one fdatasync; while a group is on its way, the next one gathers. An answer is sent
// without waiting for its group, so a kill -9 or a power cut loses at most the changes whose group had not
// been written and synced yet: those of the last group's time on disk (a few ms; the bench reports it).
// A group is written with one append, so a kill leaves at most its last line cut: read back, a cut last
// line is dropped (and the file cut back to the whole lines before it), and says so.
//
// Compaction: when the log holds more than twice the lines the state needs (plus 100,000, by default), the state is
// written to a new file beside it, a slice at a time between requests, with the lines that arrive
// meanwhile after it; then the new file is synced and renamed over the log. Replaying a line twice gives
// the same state (every line sets values, or adds to a set), which is what lets a line be both in the
// written state and after it.
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';

export const formatVersion = 2;
const headerKey = 'mpay_sandbox';

/** A data file that cannot be read as the sandbox's: `where` names the place. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    readonly where: string,
    readonly what: string,
  ) {
    super(`${file}, ${where}: ${what}`);
  }
}

export type Line = unknown[];

export interface Loaded {
  /** the secret the derived values of this file's transactions come from (hex) */
  secret: string;
  /** a whole-state file of version 1 (today's sandbox before this log): converted by the caller */
  v1?: Record<string, unknown>;
  /** what was recovered: a cut last line dropped */
  recovered?: string;
  /** lines read */
  lines: number;
}

const chunkBytes = 64 * 2 ** 20;

/**
 * Reads a data file, handing each record line to `apply` in order. Undefined when there is no file (or
 * an empty one). Throws DataFileError for a file that is not one, of another version, or damaged before
 * its last line.
 */
export function readLog(
  file: string,
  apply: (line: Line) => void,
  onHeader: (secret: string) => void,
): Loaded | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    let pos = 0; // file offset of buf[0]
    let buf = Buffer.alloc(0);
    let lineNo = 0;
    let header: Record<string, unknown> | undefined;
    let recovered: string | undefined;
    let eof = false;
    const chunk = Buffer.allocUnsafe(chunkBytes);
    const batch = new Batch(file, apply);
    for (;;) {
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        if (nl < 0) break;
        lineNo++;
        const text = buf.toString('utf8', start, nl);
        if (!header) {
          header = headerOf(file, text, lineNo);
          if (!('v1' in header)) onHeader(String(header.secret));
        }
        if ('v1' in header) return { secret: '', v1: header.v1 as Record<string, unknown>, lines: 1 };
        else if (lineNo > 1) batch.add(text, lineNo, pos + start);
        start = nl + 1;
      }
      batch.flush();
      buf = buf.subarray(start);
      pos += start;
      if (eof) break;
      const n = readSync(fd, chunk, 0, chunkBytes, null);
      if (n === 0) eof = true;
      else buf = buf.length ? Buffer.concat([buf, chunk.subarray(0, n)]) : Buffer.from(chunk.subarray(0, n));
    }
    if (buf.length > 0) {
      // The last line has no newline: whole (a kill between its bytes and its newline cannot happen, since
      // a group is one write, but a file edited by hand can end so), or cut by an interrupted write.
      lineNo++;
      const text = buf.toString('utf8');
      if (!header) {
        if (pos === 0 && lineNo === 1) header = headerOf(file, text, lineNo);
        if (header && !('v1' in header)) {
          onHeader(String(header.secret));
          writeSync(fd, '\n', pos + buf.length);
        }
        if (header && 'v1' in header)
          return { secret: '', v1: header.v1 as Record<string, unknown>, lines: 1 };
      } else {
        let whole = true;
        try {
          applyLine(file, text, lineNo, pos, apply);
        } catch {
          whole = false;
        }
        if (whole) writeSync(fd, '\n', pos + buf.length);
        else {
          ftruncateSync(fd, pos);
          fsyncSync(fd);
          recovered = `line ${lineNo} (byte ${pos}), cut by an interrupted write (${buf.length} bytes), was dropped`;
        }
      }
    }
    if (!header) return undefined; // an empty file
    return { secret: String(header.secret), recovered, lines: lineNo };
  } finally {
    closeSync(fd);
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
    private readonly apply: (line: Line) => void,
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

const headerLine = (secret: string) =>
  JSON.stringify({ [headerKey]: formatVersion, secret, written: new Date().toISOString() });

/** Writes a whole file of these lines atomically (a new file, fsync, rename, the folder fsync'd). */
export function writeWholeSync(file: string, secret: string, lines: Iterable<string>): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    let buf: string[] = [headerLine(secret)];
    let size = 0;
    for (const l of lines) {
      buf.push(l);
      size += l.length;
      if (size > 1 << 22) {
        writeSync(fd, `${buf.join('\n')}\n`);
        buf = [];
        size = 0;
      }
    }
    if (buf.length) writeSync(fd, `${buf.join('\n')}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  syncFolder(file);
}

function syncFolder(file: string): void {
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

export interface LogOptions {
  /** lines the state needs now (transactions, tokens, balances): compaction is measured against it */
  liveLines: () => number;
  /** the state as lines, for compaction (read a slice at a time, between requests) */
  stateLines: () => Iterable<string>;
  /** lines allowed beyond twice liveLines before compaction */
  slack: number;
  log: (line: string) => void;
}

/** The open log: appends in groups, compacts when it has grown. */
export class DataLog {
  private fh?: FileHandle;
  private pending: string[] = [];
  private tail: string[] | null = null;
  private writing: Promise<void> | null = null;
  private compacting: Promise<void> | null = null;
  private stopCompaction = false;
  private swapping = false;
  private closed = false;
  private failed = false;
  /** the longest time a group took to be written and synced, ms */
  longestGroupMs = 0;

  private constructor(
    readonly file: string,
    readonly secret: string,
    private lines: number,
    private readonly opts: LogOptions,
  ) {}

  /** Opens the log for appending (creating it with its header when there is none). */
  static async open(file: string, secret: string, lines: number, opts: LogOptions): Promise<DataLog> {
    if (lines === 0) writeWholeSync(file, secret, []);
    const log = new DataLog(file, secret, Math.max(lines, 1), opts);
    log.fh = await open(file, 'a');
    return log;
  }

  append(line: Line): void {
    if (this.closed) return;
    const text = JSON.stringify(line);
    this.pending.push(text);
    this.tail?.push(text);
    this.lines++;
    if (!this.writing && !this.swapping) this.writing = this.writeLoop();
    if (!this.compacting && this.lines > 2 * this.opts.liveLines() + this.opts.slack)
      this.compacting = this.compact().finally(() => (this.compacting = null));
  }

  private async writeLoop(): Promise<void> {
    // The changes of this turn of the event loop make one group.
    await new Promise((r) => setImmediate(r));
    while (this.pending.length > 0 && this.fh && !this.swapping) {
      const group = this.pending;
      this.pending = [];
      const started = performance.now();
      try {
        await this.fh.write(`${group.join('\n')}\n`);
        await this.fh.datasync();
        this.failed = false;
      } catch (err) {
        // Kept, to be written with the next group; said once.
        this.pending = [...group, ...this.pending];
        if (!this.failed) this.opts.log(`could not write ${this.file}: ${(err as Error).message}`);
        this.failed = true;
        break;
      }
      this.longestGroupMs = Math.max(this.longestGroupMs, performance.now() - started);
    }
    this.writing = null;
  }

  /** Rewrites the log as the state, a slice at a time between requests; see the top of this file. */
  private async compact(): Promise<void> {
    const tmp = join(dirname(this.file), `.${basename(this.file)}.${randomBytes(6).toString('hex')}.tmp`);
    const out = await open(tmp, 'wx', 0o600);
    let written = 0;
    try {
      this.tail = [];
      await out.write(`${headerLine(this.secret)}\n`);
      let buf: string[] = [];
      let size = 0;
      for (const l of this.opts.stateLines()) {
        if (this.stopCompaction) throw new Error('stopped');
        buf.push(l);
        size += l.length;
        written++;
        if (size > 1 << 20) {
          await out.write(`${buf.join('\n')}\n`);
          buf = [];
          size = 0;
        }
      }
      if (buf.length) await out.write(`${buf.join('\n')}\n`);
      // The last step runs with no group in flight, and none starts until the new file is in place; the
      // lines that arrive meanwhile are written to the new file once it is.
      this.swapping = true;
      while (this.writing) await this.writing;
      const tail = this.tail;
      const taken = tail.length;
      if (taken) await out.write(`${tail.slice(0, taken).join('\n')}\n`);
      await out.sync();
      await out.close();
      renameSync(tmp, this.file);
      syncFolder(this.file);
      const old = this.fh!;
      this.fh = await open(this.file, 'a');
      await old.close();
      // Every pending line is in the tail: those up to `taken` are in the new file, the rest are pending.
      this.pending = tail.slice(taken);
      this.tail = null;
      this.lines = written + tail.length + 1;
      this.swapping = false;
      if (this.pending.length) this.writing ??= this.writeLoop();
      this.opts.log(`compacted ${this.file}: ${written + taken} lines`);
    } catch (err) {
      this.tail = null;
      this.swapping = false;
      if (this.pending.length) this.writing ??= this.writeLoop();
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      if (!this.stopCompaction) this.opts.log(`could not compact ${this.file}: ${(err as Error).message}`);
    }
  }

  /** Writes what is pending and closes: used on shutdown. */
  async close(): Promise<void> {
    this.stopCompaction = true;
    if (this.compacting) await this.compacting;
    while (this.writing) await this.writing;
    if (this.pending.length) {
      this.writing = this.writeLoop();
      await this.writing;
    }
    this.closed = true;
    await this.fh?.close();
    this.fh = undefined;
  }

  /** Waits until every line appended so far is written and synced, and a compaction under way is done. */
  async synced(): Promise<void> {
    while (this.compacting || this.writing || this.pending.length) {
      if (this.compacting) await this.compacting;
      this.writing ??= this.writeLoop();
      await this.writing;
    }
  }
}
