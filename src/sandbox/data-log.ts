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
//
// Snapshots (snapshot.ts) make a restart read the state at once and only the log's tail after it: the log
// tells where a snapshot stands (position()), and says when a compaction has replaced it (onCompacted).
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { syncFolder, tempBeside } from './fs-sync.js';

export const formatVersion = 2;
export const headerKey = 'mpay_sandbox';

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

// `log` names this file as written whole (at its creation, a compaction, a conversion): a snapshot is tied to it.
const headerLine = (secret: string) =>
  JSON.stringify({
    [headerKey]: formatVersion,
    secret,
    written: new Date().toISOString(),
    log: randomBytes(8).toString('hex'),
  });

/**
 * Writes a whole file of these lines atomically (a new file, fsync, rename, the folder fsync'd): its
 * header line.
 */
export function writeWholeSync(file: string, secret: string, lines: Iterable<string>): string {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = tempBeside(file);
  const fd = openSync(tmp, 'wx', 0o600);
  const header = headerLine(secret);
  try {
    let buf: string[] = [header];
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
  return header;
}

export interface LogOptions {
  /** lines the state needs now (transactions, tokens, balances): compaction is measured against it */
  liveLines: () => number;
  /** the state as lines, for compaction (read a slice at a time, between requests) */
  stateLines: () => Iterable<string>;
  /** lines allowed beyond twice liveLines before compaction */
  slack: number;
  log: (line: string) => void;
  /** told when a compaction has replaced the file (a snapshot of the old one no longer applies) */
  onCompacted?: () => void;
}

/** Where the log stands: its header line, the bytes of every line appended so far, and their count. */
export interface LogPosition {
  header: string;
  offset: number;
  lines: number;
}

const bytesOfLines = (lines: string[]) => lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);

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
  /** the file's bytes with every line appended so far, and those written and synced */
  private bytes = 0;
  private syncedBytes = 0;

  private constructor(
    readonly file: string,
    readonly secret: string,
    private header: string,
    private lines: number,
    private readonly opts: LogOptions,
  ) {}

  /**
   * Opens the log for appending: `header` is its header line as read, or undefined to create it (with
   * its header only).
   */
  static async open(
    file: string,
    secret: string,
    read: { header: string; lines: number } | undefined,
    opts: LogOptions,
  ): Promise<DataLog> {
    const header = read?.header ?? writeWholeSync(file, secret, []);
    const log = new DataLog(file, secret, header, read?.lines ?? 1, opts);
    log.fh = await open(file, 'a');
    log.bytes = log.syncedBytes = (await log.fh.stat()).size;
    return log;
  }

  /** Where the log stands, with what is pending; undefined while a compaction is replacing it. */
  position(): LogPosition | undefined {
    if (this.compacting) return undefined;
    return { header: this.header, offset: this.bytes, lines: this.lines };
  }

  /** Where the log stands when every line appended is written and synced; else undefined. */
  settled(): LogPosition | undefined {
    return this.pending.length === 0 && this.syncedBytes === this.bytes ? this.position() : undefined;
  }

  /**
   * Waits for the groups under way: whether every line up to byte `offset` of the log of this header is
   * written and synced (false when a compaction has replaced it, or the disk refuses).
   */
  async syncedTo({ header, offset }: LogPosition): Promise<boolean> {
    for (let tries = 0; tries < 3 && this.header === header && this.syncedBytes < offset; tries++) {
      this.writing ??= this.writeLoop();
      await this.writing;
    }
    return this.header === header && this.syncedBytes >= offset;
  }

  append(line: Line): void {
    if (this.closed) return;
    const text = JSON.stringify(line);
    this.pending.push(text);
    this.tail?.push(text);
    this.lines++;
    this.bytes += Buffer.byteLength(text) + 1;
    if (!this.writing && !this.swapping) this.writing = this.writeLoop();
    if (!this.compacting && this.lines > 2 * this.opts.liveLines() + this.opts.slack)
      this.compacting = this.compact().then((done) => {
        this.compacting = null;
        if (done) this.opts.onCompacted?.();
      });
  }

  private async writeLoop(): Promise<void> {
    // The changes of this turn of the event loop make one group.
    await new Promise((r) => setImmediate(r));
    while (this.pending.length > 0 && this.fh && !this.swapping) {
      const group = this.pending;
      this.pending = [];
      const started = performance.now();
      try {
        const text = `${group.join('\n')}\n`;
        await this.fh.write(text);
        await this.fh.datasync();
        this.syncedBytes += Buffer.byteLength(text);
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
  private async compact(): Promise<boolean> {
    const tmp = tempBeside(this.file);
    const out = await open(tmp, 'wx', 0o600);
    let written = 0;
    try {
      this.tail = [];
      const header = headerLine(this.secret);
      await out.write(`${header}\n`);
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
      const fileSize = (await out.stat()).size;
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
      this.header = header;
      this.syncedBytes = fileSize;
      this.bytes = fileSize + bytesOfLines(this.pending);
      this.swapping = false;
      if (this.pending.length) this.writing ??= this.writeLoop();
      this.opts.log(`compacted ${this.file}: ${written + taken} lines`);
      return true;
    } catch (err) {
      this.tail = null;
      this.swapping = false;
      if (this.pending.length) this.writing ??= this.writeLoop();
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      if (!this.stopCompaction) this.opts.log(`could not compact ${this.file}: ${(err as Error).message}`);
      return false;
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
