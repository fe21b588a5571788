// The holdings' snapshot (snapshot.ts has the file's format): what it describes, its schedule, and its
// read at a start. A snapshot is written at a clean shutdown, after a compaction, and while changes come
// every `everyLines` lines of the log or `everyMs` ms, whichever is first; a restart then reads it and
// replays only the log's lines after the place it covers. It is tied to that log by the log's header line
// (new at each whole rewrite), the byte offset it covers, and a hash of the 64 KB of the log before that
// offset: a snapshot that does not match is set aside and the whole log read.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { DataLog, LogPosition } from './data-log.js';
import type { Holdings } from './holdings.js';
import type { Header, Resume } from './log-read.js';
import { TxStore, type StoreMeta } from './tx-store.js';
import {
  hashOfRange,
  readSnapshot,
  SnapshotError,
  writeSnapshot,
  type SnapshotContent,
  type WriteOptions,
} from './snapshot.js';

/** The description a snapshot of the holdings carries. */
interface HoldingsMeta extends Record<string, unknown> {
  /** the SHA-256 of the log's header line, the bytes and lines it covers, the hash of the 64 KB before */
  log: string;
  offset: number;
  lines: number;
  tail: string;
  secret: string;
  seq: number;
  tokens: string[];
  balances: [string, number][];
  store: StoreMeta;
  written: string;
}

const tailBytes = 64 * 1024;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const tailHash = (file: string, offset: number) => hashOfRange(file, Math.max(0, offset - tailBytes), offset);

export interface SnapshotSchedule {
  /** lines of the log after which a snapshot is written (default 50,000) */
  everyLines?: number;
  /** ms after which one is written when there were changes (default 30,000) */
  everyMs?: number;
  /**
   * whether what a start leaves of the snapshot is read in the background at once (default); else each
   * section when first needed (a test's, to see a change made before the read kept)
   */
  readLater?: boolean;
}

/** A snapshot read, waiting to be matched with its log's header. */
export interface ReadSnapshot {
  meta: HoldingsMeta;
  /** the store, its text slabs still to read (TxStore.readLater) */
  store: TxStore;
  bytes: number;
  /** leaves the slabs unread: the snapshot was set aside after all */
  close(): void;
}

/** Reads the snapshot; undefined when there is none, or when it cannot be used (said with `warn`). */
export function loadSnapshot(file: string, warn: (why: string) => void): ReadSnapshot | undefined {
  let store: TxStore | undefined;
  try {
    const read = readSnapshot<HoldingsMeta>(file, (m) => {
      if (typeof m.secret !== 'string' || !/^[0-9a-f]{64}$/.test(m.secret))
        throw new Error('its description has no valid secret');
      const restored = TxStore.restore(Buffer.from(m.secret, 'hex'), m.store);
      store = restored.store;
      return restored.targets;
    });
    if (!read || !store) return undefined;
    store.readFrom(read.later);
    return { meta: read.meta, store, bytes: statSync(file).size, close: () => read.later.close() };
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
    warn(err.message);
    return undefined;
  }
}

/**
 * Whether the snapshot covers the log whose header was read, as it is on disk: why not, in words, or
 * undefined when it does.
 */
export function mismatch(snap: ReadSnapshot, header: Header, logFile: string): string | undefined {
  const { meta } = snap;
  if (meta.log !== sha(header.text) || meta.secret !== header.secret)
    return 'it was written for another log (the log was rewritten since)';
  if (!(Number.isSafeInteger(meta.offset) && meta.offset > header.text.length))
    return 'its place in the log is not one';
  if (tailHash(logFile, meta.offset) !== meta.tail)
    return `the log's bytes before byte ${meta.offset}, where it stands, are not the ones it was written after`;
  return undefined;
}

/**
 * The log's size when it is the log the snapshot was written for (its header) but ends before the place
 * the snapshot covers: cut, or put back from an older copy. Undefined otherwise.
 */
export function logBehind(snap: ReadSnapshot, header: Header, logFile: string): number | undefined {
  const { meta } = snap;
  if (meta.log !== sha(header.text) || meta.secret !== header.secret) return undefined;
  const size = statSync(logFile).size;
  return Number.isSafeInteger(meta.offset) && size < meta.offset ? size : undefined;
}

/** Takes the snapshot's holdings as the state: where to resume reading the log. */
export function adopt(h: Holdings, snap: ReadSnapshot): Resume {
  const { meta } = snap;
  h.store = snap.store;
  h.seq = meta.seq;
  for (const t of meta.tokens) h.tokens.add(t);
  for (const [code, bal] of meta.balances) h.setBalance(code, bal);
  return { offset: meta.offset, lines: meta.lines };
}

/** The holdings as a snapshot, at a position of the log where nothing is pending. */
function capture(h: Holdings, logFile: string, pos: LogPosition): SnapshotContent | undefined {
  const tail = tailHash(logFile, pos.offset);
  if (!tail) return undefined;
  const { meta: store, sections } = h.store.capture();
  const meta: HoldingsMeta = {
    log: sha(pos.header),
    offset: pos.offset,
    lines: pos.lines,
    tail,
    secret: h.store.secret.toString('hex'),
    seq: h.seq,
    tokens: [...h.tokens],
    balances: [...h.balances],
    store,
    written: new Date().toISOString(),
  };
  return { meta, sections };
}

/** Writes the holdings' snapshots on their schedule, one at a time. */
export class Snapshots {
  private lines = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private readonly timer: NodeJS.Timeout;
  private stopped = false;
  /** resolved at close: what a paused write (a test's) waits for */
  private release = () => {};
  private readonly closing = new Promise<void>((r) => (this.release = r));
  /** the place of the log the last snapshot covers (none is written again for the same place) */
  private covered?: { header: string; offset: number };

  constructor(
    readonly file: string,
    private readonly h: Holdings,
    private readonly data: DataLog,
    private readonly opts: SnapshotSchedule & { log: (line: string) => void },
    covered?: { header: string; offset: number },
  ) {
    this.covered = covered;
    h.onAppend = () => {
      if (++this.lines >= (opts.everyLines ?? 50_000)) this.request();
    };
    this.timer = setInterval(() => this.lines > 0 && this.request(), opts.everyMs ?? 30_000);
    this.timer.unref();
  }

  /**
   * Asks for a snapshot: now, or after the one under way. `pauseAfterBytes`: a test's, which kills the
   * process while the snapshot is written; the write waits there, after `onPause`, until close.
   */
  request(pauseAfterBytes?: number, onPause: () => void = () => {}): Promise<void> {
    const pause =
      pauseAfterBytes === undefined
        ? undefined
        : { afterBytes: pauseAfterBytes, until: this.closing, onPause };
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.lines = 0;
    this.running = this.write(pause).finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.request();
      }
    });
    return this.running;
  }

  /** The log settled (nothing pending), the holdings captured there, written. */
  private async write(pause?: WriteOptions['pause']): Promise<void> {
    const started = performance.now();
    let content: SnapshotContent | undefined;
    let pos: LogPosition | undefined;
    for (let tries = 0; tries < 5 && !content; tries++) {
      pos = this.data.position();
      if (!pos || !(await this.data.syncedTo(pos))) return;
      // Nothing ran between the last group's sync and here, unless another turn appended lines.
      pos = this.data.settled();
      if (pos && this.covered?.header === pos.header && this.covered.offset === pos.offset) return;
      try {
        if (pos) content = capture(this.h, this.data.file, pos);
      } catch (err) {
        // a slab of the snapshot the start read from, damaged: the state is read again from the log
        this.opts.log(`could not write the snapshot ${this.file}: ${(err as Error).message}`);
        return;
      }
    }
    if (!content || !pos) return;
    const at = pos;
    try {
      const bytes = await writeSnapshot(this.file, content, {
        // the log synced up to the place the snapshot covers, and not replaced since
        beforeRename: () => this.data.syncedTo(at),
        pause,
      });
      if (bytes !== undefined) this.covered = at;
      if (bytes !== undefined)
        this.opts.log(
          `snapshot ${this.file}: ${this.h.store.size} transactions, ${(bytes / 2 ** 20).toFixed(1)} MB, in ${((performance.now() - started) / 1000).toFixed(2)} s`,
        );
    } catch (err) {
      this.opts.log(`could not write the snapshot ${this.file}: ${(err as Error).message}`);
    }
  }

  /** The snapshot on disk no longer stands for the state (it was damaged): the next is written anew. */
  forget(): void {
    this.covered = undefined;
  }

  /** At shutdown, once the log is closed: the last snapshot, covering every change. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.h.onAppend = undefined;
    this.release();
    while (this.running) await this.running;
    this.stopped = true;
    await this.write();
  }
}
