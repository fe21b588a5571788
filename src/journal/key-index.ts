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
import { requirePrivate } from '../api/private-path.js';
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
import { fnv, readBytes } from './bytes.js';
import { FirstsCursor, IndexDamaged, blockBytes } from './firsts.js';

export { IndexDamaged };
import type { LogLine } from './log-lines.js';

const version = 3;

interface State {
  version: number;
  identity: string;
  /** bytes of the log indexed: whole lines only */
  offset: number;
  /** the start of the log's last line before `offset` (base64): a file copied over in place is noticed */
  last: string;
  /** committed bytes of each shard, by its hex name */
  shards: Record<string, number>;
  /** FNV-1a of each shard's committed bytes: a shard garbled or cut is noticed */
  sums: Record<string, number>;
  /** committed bytes of firsts.bin, and the FNV-1a of each block of it (8192 offsets, 64 KB) */
  firsts: number;
  firstsSums: number[];
}

/**
 * The start of the log's last line before `offset` (its time and reference, up to 128 bytes), as
 * state.json keeps it: lines end alike (the place), they do not start alike.
 */
export function lastBytes(fd: number, offset: number): string {
  const buf = readBytes(fd, Math.max(0, offset - 4096), offset);
  const start = buf.lastIndexOf(0x0a, buf.length - 2) + 1;
  return buf.subarray(start, Math.min(buf.length, start + 128)).toString('base64');
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

export class KeyIndex {
  readonly dir: string;
  private state?: State;
  private readonly shardText = new Map<string, string>();

  constructor(journalDir: string, fileName: string) {
    this.dir = join(journalDir, 'index', fileName);
    // mpay's own, as the journal is (api/private-path.ts): an index another user could write would say
    // where a reference's lines are
    requirePrivate(join(journalDir, 'index'), 'folder', 'journal index');
    requirePrivate(this.dir, 'folder', 'journal index');
  }

  /**
   * The committed state, when it belongs to the log as it is now: the same file (identity), not cut
   * shorter, and with the same bytes where the index ends (a file copied over it in place has others).
   */
  committed(identity: string, size: number, fd?: number): State | undefined {
    const s0 = this.state;
    if (
      s0?.identity === identity &&
      s0.offset <= size &&
      (fd === undefined || lastBytes(fd, s0.offset) === s0.last)
    )
      return s0;
    this.shardText.clear();
    try {
      const s = JSON.parse(readFileSync(join(this.dir, 'state.json'), 'utf8')) as State;
      if (
        s.version === version &&
        s.identity === identity &&
        s.offset <= size &&
        s.shards &&
        s.sums &&
        (fd === undefined || lastBytes(fd, s.offset) === s.last)
      ) {
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
        let bytes: Buffer;
        try {
          const fd = openSync(join(this.dir, `keys-${shard}.tsv`), 'r');
          try {
            bytes = readBytes(fd, 0, size);
          } finally {
            closeSync(fd);
          }
        } catch (err) {
          throw new IndexDamaged(`shard ${shard}: ${(err as Error).message}`);
        }
        if (bytes.length !== size || fnv(bytes) !== s.sums[shard]) throw new IndexDamaged(`shard ${shard}`);
        text = bytes.toString('utf8');
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

  /**
   * The committed first-line offsets from the last back, read a block at a time as a backward scan
   * reaches them (a page of history reads the last block only). Checked as read: ascending, and within
   * the indexed part of the log; a backward scan also checks each against the line it names.
   */
  firstsBackward(): FirstsCursor {
    const s = this.state;
    const size = s?.firsts ?? 0;
    if (size % 8 !== 0) throw new IndexDamaged('firsts: not whole offsets');
    let fd: number | undefined;
    if (size > 0) {
      try {
        fd = openSync(join(this.dir, 'firsts.bin'), 'r');
        if (fstatSync(fd).size < size) throw new Error('shorter than committed');
      } catch (err) {
        if (fd !== undefined) closeSync(fd);
        throw new IndexDamaged(`firsts: ${(err as Error).message}`);
      }
    }
    const cursor = new FirstsCursor(fd, size / 8, s?.offset ?? 0, s?.firstsSums ?? []);
    cursor.seek(Number.MAX_SAFE_INTEGER); // the last block, checked now: before anything is given
    return cursor;
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
    log: number,
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
      const now = this.committed(identity, Number.MAX_SAFE_INTEGER, log);
      if (!from && now) return true;
      const base = from && now && now.offset === from.offset ? now : undefined;
      if (from && !base) return false;
      if (!base) {
        // A new index: every file of the old one goes (but the lock this writer holds).
        for (const f of readdirSync(this.dir))
          if (f !== 'write.lock') rmSync(join(this.dir, f), { recursive: true, force: true });
      }
      const state: State = base
        ? { ...base, shards: { ...base.shards }, sums: { ...base.sums }, firstsSums: [...base.firstsSums] }
        : { version, identity, offset: 0, last: '', shards: {}, sums: {}, firsts: 0, firstsSums: [] };
      this.appendLines(state, lines, isFirst);
      state.offset = end;
      state.last = lastBytes(log, end);
      utimesSync(join(this.dir, 'write.lock'), new Date(), new Date());
      this.writeState(state);
      this.state = state;
      this.shardText.clear();
      return true;
    } catch {
      return false; // an index that cannot be written: the log is read instead
    } finally {
      release?.();
    }
  }

  /**
   * Appends the lines' keys to their shards, and the offsets of the lines that start a reference to
   * firsts.bin, with the sums of what was written; `state` takes the new lengths.
   */
  private appendLines(state: State, lines: LogLine[], isFirst: (l: LogLine) => boolean): void {
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
    for (const [shard, list] of byShard) {
      const b = Buffer.from(list.join(''));
      state.shards[shard] = append(join(this.dir, `keys-${shard}.tsv`), state.shards[shard] ?? 0, b);
      state.sums[shard] = fnv(b, state.sums[shard] ?? 0x811c9dc5);
    }
    if (firsts.length > 0) {
      const b = Buffer.from(new Float64Array(firsts).buffer);
      const from = Math.floor(state.firsts / blockBytes) * blockBytes;
      state.firsts = append(join(this.dir, 'firsts.bin'), state.firsts, b);
      // the sums of the blocks this append touched: the last one as it was, and any new ones
      const fd = openSync(join(this.dir, 'firsts.bin'), 'r');
      try {
        for (let at = from; at < state.firsts; at += blockBytes)
          state.firstsSums[at / blockBytes] = fnv(readBytes(fd, at, Math.min(state.firsts, at + blockBytes)));
      } finally {
        closeSync(fd);
      }
    }
  }

  /** state.json replaced atomically: a temporary file, fsync'd, renamed over it. */
  private writeState(state: State): void {
    const tmp = join(this.dir, `state.${randomBytes(6).toString('hex')}.tmp`);
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, JSON.stringify(state));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, 'state.json'));
  }

  /** Forgets the index (damaged, or of another file): the next reader builds it anew. */
  discard(): void {
    this.state = undefined;
    this.shardText.clear();
    rmSync(join(this.dir, 'state.json'), { force: true });
  }

  /** Removes the whole index (a prune replaced the log: its keys must not outlive it). */
  remove(): void {
    this.discard();
    rmSync(this.dir, { recursive: true, force: true });
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
