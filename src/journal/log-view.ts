// A journal file as read: the index of its keys (key-index.ts), committed, and the lines past it held in
// memory, so that a command reads only what was appended since (by this process or another); the records
// newest first, read backwards from the end; and each damaged line reported once. journal.ts writes the
// file and answers for its records through this.
import { closeSync, fstatSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { LocalFileError } from '../api/errors.js';
import { readBytes } from './bytes.js';
import { IndexDamaged, KeyIndex } from './key-index.js';
import { backChunk, backwards, lineAt, splitLines, type LogLine } from './log-lines.js';
import { foldRecords, type JournalEvent, type JournalRecord } from './records.js';

export interface LogViewOptions {
  /** told once per damaged line: the file and the line number */
  warn?: (message: string) => void;
  /** told when a journal is indexed for the first time (a terminal shows it: it takes seconds) */
  onIndex?: (message: string) => void;
  /** the size from which the log gets an index (default 256 KB; smaller ones are read whole, quickly) */
  indexFrom?: number;
}

export class LogView {
  private readonly warn: (message: string) => void;
  private readonly onIndex?: (message: string) => void;
  private readonly indexFrom: number;
  private readonly warned = new Set<number>();
  private readonly index: KeyIndex;
  /**
   * The log's lines past what the index has committed, parsed, as last read: a command reads only what
   * was appended since (by this process or another). A file replaced by a prune (another inode) or cut
   * shorter is looked at anew.
   */
  private tail: Tail = { identity: '', start: 0, end: 0, lines: [] };

  constructor(
    readonly file: string,
    opts: LogViewOptions = {},
  ) {
    this.warn = opts.warn ?? (() => {});
    this.onIndex = opts.onIndex;
    this.indexFrom = opts.indexFrom ?? indexFromBytes;
    this.index = new KeyIndex(dirname(file), basename(file));
  }

  /** The index goes with the lines a prune removed: it is built again for the new file. */
  forgetIndex(): void {
    this.index.remove();
  }

  /** Reports a damaged line once per process, by its line number (counted then: damage is rare). */
  private damaged(offset: number): void {
    if (this.warned.has(offset)) return;
    this.warned.add(offset);
    let line = 1;
    try {
      const fd = openSync(this.file, 'r');
      try {
        for (let at = 0; at < offset; at += backChunk) {
          const buf = readBytes(fd, at, Math.min(offset, at + backChunk));
          for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, i + 1)) line++;
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      // the number is for people: without it, the byte offset says where
    }
    this.warn(
      `${this.file} line ${line} is damaged and was skipped; the other records are intact (the line is left in the file)`,
    );
  }

  /**
   * Brings the view of the file up to date: the index's committed part, and the lines past it, read into
   * memory. Once those are more than a little (or there is no index), they are committed to the index
   * (without waiting for another process that is doing so). Returns the committed state's offset.
   */
  private sync(): { size: number; committed: number } {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.tail = { identity: '', start: 0, end: 0, lines: [] };
        return { size: 0, committed: 0 };
      }
      throw new LocalFileError(
        `Cannot read the journal ${this.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        { cause: err, hint: 'Make the journal folder and its files readable by you' },
      );
    }
    try {
      const st = fstatSync(fd);
      const identity = `${st.dev}:${st.ino}`;
      let state = this.index.committed(identity, st.size, fd);
      // A small log is read whole (a few ms); from indexFrom on, it gets its index. Past the index, a
      // little is read into memory and a lot (an index far behind) is indexed first, a chunk at a time.
      if (st.size >= this.indexFrom && st.size - (state?.offset ?? 0) > buildChunk) {
        this.build(fd, identity, st.size, state);
        state = this.index.committed(identity, st.size, fd);
      } else if (!state && st.size > 0 && st.size >= this.indexFrom) {
        this.build(fd, identity, st.size, undefined);
        state = this.index.committed(identity, st.size, fd);
      }
      const start = state?.offset ?? 0;
      const t = this.tail;
      const keep = t.identity === identity && t.start === start && t.end <= st.size;
      if (!keep) this.tail = { identity, start, end: start, lines: [] };
      if (this.tail.end < st.size) {
        const buf = readBytes(fd, this.tail.end, st.size);
        const { lines, used } = splitLines(buf, this.tail.end);
        for (const l of lines) this.tail.lines.push(l);
        this.tail.end += used;
        // A last line without its newline: one written by hand is taken (in memory, never indexed); one
        // torn by a crash (or still being written by another process) is read again next time.
        const rest = buf.subarray(used).toString('utf8');
        this.tail.partial = undefined;
        if (rest.trim()) {
          const [line] = splitLines(Buffer.from(`${rest}\n`), this.tail.end).lines;
          if (line?.event) this.tail.partial = line;
          else this.damaged(this.tail.end);
        }
        for (const l of lines) if (!l.event && l.text.trim()) this.damaged(l.offset);
      }
      if (state && this.tail.end - this.tail.start > tailBytes) this.commitTail(identity, state, fd);
      return { size: st.size, committed: this.tail.start };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Indexes the log from where its index ends (`from`), or from its start: the first index of an old
   * journal, or one far behind. In chunks, said on a terminal when it is large.
   */
  private build(fd: number, identity: string, size: number, from: ReturnType<KeyIndex['committed']>): void {
    let at = from?.offset ?? 0;
    if (size - at > 4 * 1024 * 1024)
      this.onIndex?.(
        `indexing the journal ${this.file} (${Math.round((size - at) / 1024 / 1024)} MB), once: later commands read only what they need`,
      );
    const seen = new Set<string>();
    let state = from;
    while (at < size) {
      const buf = readBytes(fd, at, Math.min(size, at + buildChunk));
      const { lines, used } = splitLines(buf, at, { lean: true });
      if (used === 0) break; // a last line without its newline: left to the tail
      for (const l of lines) if (!l.event && l.text.trim()) this.damaged(l.offset);
      const ok = this.index.commit(
        identity,
        state,
        lines,
        at + used,
        (l) => {
          const ref = l.event!.reference;
          if (seen.has(ref) || (from && this.index.known(ref))) return false;
          seen.add(ref);
          return true;
        },
        fd,
      );
      if (!ok) return; // another process is indexing: this one reads the log
      state = this.index.committed(identity, size, fd);
      at += used;
    }
  }

  /** Commits the tail's whole lines to the index (a reference's first line is one the index has not). */
  private commitTail(
    identity: string,
    state: NonNullable<ReturnType<KeyIndex['committed']>>,
    fd: number,
  ): void {
    const t = this.tail;
    const fresh = new Set<string>();
    const ok = this.index.commit(
      identity,
      state,
      t.lines,
      t.end,
      (l) => {
        const ref = l.event!.reference;
        if (fresh.has(ref) || this.index.known(ref)) return false;
        fresh.add(ref);
        return true;
      },
      fd,
    );
    if (ok) this.tail = { identity, start: t.end, end: t.end, lines: [], partial: t.partial };
  }

  /** The tail's lines, with a parseable unterminated last line. */
  private tailLines(): LogLine[] {
    return this.tail.partial ? [...this.tail.lines, this.tail.partial] : this.tail.lines;
  }

  /** The committed lines at these offsets; an offset that is not a line's start is a damaged index. */
  private linesAt(offsets: number[]): LogLine[] {
    if (offsets.length === 0) return [];
    const fd = openSync(this.file, 'r');
    try {
      return offsets.map((o) => {
        if (o > 0 && readBytes(fd, o - 1, o)[0] !== 0x0a) throw new IndexDamaged(`offset ${o}`);
        return lineAt(fd, o);
      });
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Runs a read of the index; an index found damaged (a file garbled, cut or gone, offsets that are not
   * line starts or name other keys) is thrown away and built again from the log, and the read run again.
   */
  private withIndex<T>(read: () => T): T {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof IndexDamaged)) throw err;
      this.index.discard();
      this.sync();
      return read();
    }
  }

  /** Every event of a hash token or reference, in the file's order: from the index and the tail. */
  eventLines(key: string): LogLine[] {
    this.sync();
    return this.withIndex(() => {
      const tail = this.tailLines();
      const named = (l: LogLine) => l.event?.reference === key || l.event?.hash_token === key;
      const direct = this.linesAt(this.index.offsetsOf(key));
      // A line that is not an event (damaged after it was indexed) is passed over.
      if (direct.some((l) => l.event && !named(l))) throw new IndexDamaged(`offsets of ${key}`);
      // A hash token leads to its reference, whose every line belongs to the record.
      const refs = new Set([...direct, ...tail].filter(named).map((l) => l.event!.reference));
      // A reference's own lines were read as `direct`: those are not read a second time.
      const read = new Map(direct.map((l) => [l.offset, l]));
      const lines = new Map<number, LogLine>();
      for (const ref of refs) {
        const offsets = this.index.offsetsOf(ref);
        for (const l of this.linesAt(offsets.filter((o) => !read.has(o)))) read.set(l.offset, l);
        for (const o of offsets) lines.set(o, read.get(o)!);
        for (const l of tail) if (l.event?.reference === ref) lines.set(l.offset, l);
      }
      return [...lines.values()].filter((l) => l.event).sort((a, b) => a.offset - b.offset);
    });
  }

  /** Every event of this file written since `since` (ms), oldest first, read back from the end. */
  eventsSince(since: number): JournalEvent[] {
    this.sync();
    const out: JournalEvent[] = [];
    for (const l of backwards(this.file, this.tail.start, this.tailLines(), (o) => this.damaged(o))) {
      if (Date.parse(l.event!.at) < since - sinceMargin) break;
      if (Date.parse(l.event!.at) >= since) out.push(l.event!);
    }
    return out.reverse();
  }

  /**
   * The records of this file, newest first (by their first line), each whole, read backwards from the
   * end: a caller that stops after N reads only as far back as the N-th newest. With `since` (ms), the
   * read stops at the lines written before then (a margin of ${'10 min'} allows for clocks of processes
   * that wrote at once): records made before `since` are not given.
   */
  *newest(opts: { since?: number } = {}): Generator<JournalRecord> {
    this.sync();
    const open = new Map<string, JournalEvent[]>();
    // Read before the first record is given: a damaged index is rebuilt here, not halfway through.
    const { firsts, tailFirsts } = this.withIndex(() => {
      const tailFirsts = new Set<number>();
      const seenInTail = new Set<string>();
      for (const l of this.tailLines()) {
        const ref = l.event?.reference;
        if (ref === undefined || seenInTail.has(ref)) continue;
        seenInTail.add(ref);
        if (!this.index.known(ref)) tailFirsts.add(l.offset);
      }
      return { firsts: this.index.firstsBackward(), tailFirsts };
    });
    const stopAt = opts.since === undefined ? undefined : opts.since - sinceMargin;
    let lastOffset = -1;
    const wanted = function* (list: JournalEvent[]): Generator<JournalRecord> {
      const records = foldRecords(list.reverse());
      for (const r of records.sort((a, b) => (a.created_at < b.created_at ? 1 : -1)))
        if (opts.since === undefined || Date.parse(r.created_at) >= opts.since) yield r;
    };
    let damaged = false;
    try {
      for (const l of backwards(this.file, this.tail.start, this.tailLines(), (o) => this.damaged(o))) {
        const e = l.event!;
        if (stopAt !== undefined && Date.parse(e.at) < stopAt) return;
        let list = open.get(e.reference);
        if (!list) open.set(e.reference, (list = []));
        list.push(e);
        let first: boolean;
        if (l.offset >= this.tail.start) first = tailFirsts.has(l.offset);
        else {
          // A first that no line starts at, passed over: the index is not this log's (it is thrown away,
          // and this read goes on; the records it could not place come at the end).
          const before = firsts.current();
          let at: number | undefined;
          try {
            at = damaged ? undefined : firsts.seek(l.offset);
          } catch (err) {
            if (!(err instanceof IndexDamaged)) throw err;
            damaged = true;
          }
          if (before !== undefined && before > l.offset && before !== lastOffset) damaged = true;
          first = at === l.offset;
        }
        lastOffset = l.offset;
        if (!first) continue;
        open.delete(e.reference);
        yield* wanted(list);
      }
    } finally {
      firsts.close();
      if (damaged) this.index.discard();
    }
    // The start of the file: a record whose first line was never seen as one (an index of another
    // shape) is given now rather than never.
    for (const list of open.values()) yield* wanted(list);
  }
}

interface Tail {
  identity: string;
  /** where the index's committed part ends: the tail starts there */
  start: number;
  /** bytes of whole lines read */
  end: number;
  lines: LogLine[];
  /** a parseable last line without its newline (written by hand), read but never indexed */
  partial?: LogLine;
}

/** The size from which a log gets an index: below it, reading it whole takes a few milliseconds. */
const indexFromBytes = 256 * 1024;
/** Bytes past the index that are read from the log before they are committed to it. */
const tailBytes = 64 * 1024;
/** How much of the log the first index reads at a time. */
const buildChunk = 32 * 1024 * 1024;
/** Lines of processes that wrote at once may be out of time order by this much (ms). */
const sinceMargin = 10 * 60 * 1000;
