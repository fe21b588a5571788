// The index beside a journal file, so that what a command costs is bound by its task, not by the
// journal's length (docs/performance.md, "The journal"). The log stays the truth: the index is derived
// from it, holds nothing the log does not (references, hash tokens and byte offsets; no secret, no
// personal data), and is rebuilt from the log whenever it is missing, damaged, or of another file.
//
// journal/index/<journal file name>/
//   state.json   what is committed: the log's identity (device, inode) and the bytes of it indexed, and
//                the committed length of every other file here
//   keys-XX.tsv  for each line of the log, `"reference"\t<offset>` and, when it carries one,
//                `"hash token"\t<offset>`; XX is a hash of the key (256 shards), so that a lookup reads
//                one shard
//   firsts.bin   the offsets of the lines that start a reference (its first line), ascending, 8 bytes
//                each: a backward scan knows a record is whole when it passes its first line
//
// Only the committed length of each file is ever read: a writer killed mid-append leaves bytes past it,
// which the next writer cuts off. Writers hold a lock (a folder, taken without waiting: a reader that
// finds it held reads the part not yet indexed from the log, in memory). Files are fsync'd before
// state.json names their new lengths, and state.json is replaced atomically.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { readBytes } from './bytes.js';
import { isEvent, type JournalEvent } from './records.js';

const version = 1;

interface State {
  version: number;
  identity: string;
  /** bytes of the log indexed: whole lines only */
  offset: number;
  /** committed bytes of each shard, by its hex name */
  shards: Record<string, number>;
  /** committed bytes of firsts.bin */
  firsts: number;
}

/** A line of the log: where it starts, and the event on it (undefined: not an event). */
export interface LogLine {
  offset: number;
  event?: JournalEvent;
  text: string;
}

/** The shard of a key: FNV-1a of its text, low byte, as two hex digits. */
export function shardOf(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h & 0xff).toString(16).padStart(2, '0');
}

/**
 * The whole lines of a buffer read at `start`: each with its offset, and the bytes they take. `lean` keeps
 * of an event line only what the index needs (its reference and hash token), not its text.
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
    const text = buf.toString('utf8', at, nl);
    const event = parse(text);
    lines.push(
      opts.lean && event
        ? {
            offset: start + at,
            text: '',
            event: { reference: event.reference, hash_token: event.hash_token } as JournalEvent,
          }
        : { offset: start + at, text, event },
    );
    at = nl + 1;
  }
  return { lines, used: at };
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

export class KeyIndex {
  readonly dir: string;
  private state?: State;
  private readonly shardText = new Map<string, string>();
  private firstsMemo?: Float64Array;

  constructor(journalDir: string, fileName: string) {
    this.dir = join(journalDir, 'index', fileName);
  }

  /** The committed state, when it belongs to the log as it is now (identity, and not cut shorter). */
  committed(identity: string, size: number): State | undefined {
    if (this.state?.identity === identity && this.state.offset <= size) return this.state;
    this.shardText.clear();
    this.firstsMemo = undefined;
    try {
      const s = JSON.parse(readFileSync(join(this.dir, 'state.json'), 'utf8')) as State;
      if (s.version === version && s.identity === identity && s.offset <= size && s.shards) {
        this.state = s;
        return s;
      }
    } catch {
      // missing or damaged: rebuilt by the next writer
    }
    this.state = undefined;
    return undefined;
  }

  /** Offsets of the committed lines that name `key` (as reference or hash token), ascending, unique. */
  offsetsOf(key: string): number[] {
    const s = this.state;
    if (!s) return [];
    const shard = shardOf(key);
    let text = this.shardText.get(shard);
    if (text === undefined) {
      const size = s.shards[shard] ?? 0;
      text = '';
      if (size > 0) {
        const fd = openSync(join(this.dir, `keys-${shard}.tsv`), 'r');
        try {
          text = readBytes(fd, 0, size).toString('utf8');
        } finally {
          closeSync(fd);
        }
      }
      this.shardText.set(shard, text);
    }
    const prefix = `${JSON.stringify(key)}\t`;
    const found = new Set<number>();
    for (let at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + 1)) {
      if (at > 0 && text.charCodeAt(at - 1) !== 0x0a) continue;
      const end = text.indexOf('\n', at);
      found.add(Number(text.slice(at + prefix.length, end < 0 ? undefined : end)));
    }
    return [...found].filter(Number.isFinite).sort((a, b) => a - b);
  }

  /** Whether a reference has a committed line. */
  known(reference: string): boolean {
    return this.offsetsOf(reference).length > 0;
  }

  /** The committed first-line offsets, ascending. */
  firsts(): Float64Array {
    const s = this.state;
    if (!s || s.firsts === 0) return new Float64Array(0);
    if (!this.firstsMemo) {
      const fd = openSync(join(this.dir, 'firsts.bin'), 'r');
      try {
        const b = readBytes(fd, 0, s.firsts);
        this.firstsMemo = new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
      } finally {
        closeSync(fd);
      }
    }
    return this.firstsMemo;
  }

  /**
   * Indexes the log's lines from the committed offset (or from the start: `rebuild`) to `end`, holding
   * the writers' lock; false when another process holds it (nothing written). `lines` are those lines,
   * already read; `isFirst` says which start their reference.
   */
  commit(
    identity: string,
    from: State | undefined,
    lines: LogLine[],
    end: number,
    isFirst: (l: LogLine) => boolean,
  ): boolean {
    let release: (() => void) | undefined;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      release = lockSync(this.dir);
    } catch {
      return false;
    }
    try {
      // What another writer committed meanwhile is kept only if it is where this one starts; a whole
      // index another process built meanwhile is taken as it is.
      const now = this.committed(identity, Number.MAX_SAFE_INTEGER);
      if (!from && now) return true;
      const base = from && now && now.offset === from.offset ? now : undefined;
      if (from && !base) return false;
      if (!base) {
        // A new index: every file of the old one goes (but the lock this writer holds).
        for (const f of readdirSync(this.dir))
          if (f !== 'write.lock') rmSync(join(this.dir, f), { recursive: true, force: true });
      }
      const state: State = base
        ? { ...base, shards: { ...base.shards } }
        : { version, identity, offset: 0, shards: {}, firsts: 0 };
      const byShard = new Map<string, string[]>();
      const add = (key: string, offset: number) => {
        const shard = shardOf(key);
        let list = byShard.get(shard);
        if (!list) byShard.set(shard, (list = []));
        list.push(`${JSON.stringify(key)}\t${offset}\n`);
      };
      const firsts: number[] = [];
      for (const l of lines) {
        if (!l.event) continue;
        add(l.event.reference, l.offset);
        if (l.event.hash_token) add(l.event.hash_token, l.offset);
        if (isFirst(l)) firsts.push(l.offset);
      }
      for (const [shard, list] of byShard)
        state.shards[shard] = append(
          join(this.dir, `keys-${shard}.tsv`),
          state.shards[shard] ?? 0,
          list.join(''),
        );
      if (firsts.length > 0) {
        const b = Buffer.from(new Float64Array(firsts).buffer);
        state.firsts = append(join(this.dir, 'firsts.bin'), state.firsts, b);
      }
      state.offset = end;
      utimesSync(join(this.dir, 'write.lock'), new Date(), new Date());
      const tmp = join(this.dir, `state.${randomBytes(6).toString('hex')}.tmp`);
      const fd = openSync(tmp, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(state));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, join(this.dir, 'state.json'));
      this.state = state;
      this.shardText.clear();
      this.firstsMemo = undefined;
      return true;
    } catch {
      return false; // an index that cannot be written: the log is read instead
    } finally {
      release?.();
    }
  }

  /** Forgets the index (it pointed at lines that are not its keys'): the next reader builds it anew. */
  discard(): void {
    this.state = undefined;
    this.shardText.clear();
    this.firstsMemo = undefined;
    rmSync(join(this.dir, 'state.json'), { force: true });
  }
}

/** Appends to a file from its committed length (cutting off what a killed writer left), fsync'd. */
function append(file: string, committed: number, data: string | Buffer): number {
  const fd = openSync(file, 'a+', 0o600);
  try {
    if (fstatSync(fd).size !== committed) ftruncateSync(fd, committed);
    const b = typeof data === 'string' ? Buffer.from(data) : data;
    let n = 0;
    while (n < b.length) n += writeSync(fd, b, n, b.length - n);
    fsyncSync(fd);
    return committed + n;
  } finally {
    closeSync(fd);
  }
}

/**
 * The writers' lock of an index folder: a folder made atomically, taken at once or not at all. One a
 * killed writer left is taken over once it is a minute old (a writer touches it as it goes).
 */
function lockSync(dir: string): () => void {
  const path = join(dir, 'write.lock');
  try {
    mkdirSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (Date.now() - statSync(path).mtimeMs < staleLockMs) throw err;
    rmSync(path, { recursive: true, force: true });
    mkdirSync(path); // another writer that took it over first makes this fail: busy
  }
  return () => rmSync(path, { recursive: true, force: true });
}

const staleLockMs = 60_000;
