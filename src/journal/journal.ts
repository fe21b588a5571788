// The durable local record of every transaction mpay starts: one append-only JSON-lines file per
// profile and environment. Each step is written before it is sent and again when its outcome is known,
// with fsync, so a crash, a dropped connection or Ctrl-C never loses a hash token or a reference that
// reached the server. Appends of one line each are atomic on local file systems, so several mpay
// processes can share a journal. No secret is ever written here.
import {
  closeSync,
  readdirSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { LocalFileError } from '../api/errors.js';
import { holdLock, lockName } from './locks.js';
import { readBytes } from './bytes.js';
import { rewriteWithout } from './prune.js';
import { elsewhereError } from './elsewhere.js';
import { journalFileName } from './file-name.js';
import {
  fold,
  isEvent,
  samePlace,
  settled,
  type JournalEvent,
  type JournalRecord,
  type Place,
} from './records.js';

const forbidden = /^(merchant_key|api_key|otp|token|authorization)$/i;

/** What flows need of a journal; transactions mpay did not start use the NullJournal. */
export interface JournalLike {
  append(event: Omit<JournalEvent, 'at' | 'place'>): JournalEvent;
  /**
   * The record of a hash token or reference at this journal's place. A journal with a place refuses
   * (ElsewhereError) a key whose only record lives at another server or merchant, or in another profile's
   * or environment's journal: that transaction is continued only there.
   */
  find(key: string): JournalRecord | undefined;
  /** the last event this process appended: what an interrupted command was doing */
  readonly lastAppended?: JournalEvent;
  /** where this journal's new records live (absent: a journal that records nothing, or reads only) */
  readonly place?: Place;
  /**
   * Takes the lock of what `key` names (a transaction, a batch's file) for this process, or refuses with
   * a BusyError naming `what`; returns the release (journal/locks.ts).
   */
  hold(key: string[], what: string): Promise<() => Promise<void>>;
}

export class NullJournal implements JournalLike {
  append(event: Omit<JournalEvent, 'at' | 'place'>): JournalEvent {
    return { at: new Date().toISOString(), ...event };
  }
  find(): undefined {
    return undefined;
  }
  /** A transaction mpay did not start has nothing to lock: the API alone knows it. */
  hold(): Promise<() => Promise<void>> {
    return Promise.resolve(() => Promise.resolve());
  }
}

export interface JournalOptions {
  /** told once per damaged line: the file and the line number */
  warn?: (message: string) => void;
  /** the clock of the journal's timestamps */
  now?: () => Date;
  /**
   * The server and merchant of this run. Every line appended carries it, and find() answers only with
   * records made there; without it (history, support) the journal reads every record.
   */
  place?: Place;
  /** read this file instead of the profile's and environment's (the other journals of the folder) */
  file?: string;
  /**
   * `mpay deposit batch --new-batch`: a key whose records all live elsewhere is new here, instead of
   * refused. Records here are still found.
   */
  newHere?: boolean;
}

export class Journal implements JournalLike {
  readonly file: string;
  readonly dir: string;
  lastAppended?: JournalEvent;
  private readonly warn: (message: string) => void;
  private readonly now: () => Date;
  readonly place?: Place;
  private readonly newHere: boolean;

  constructor(dir: string, profile: string, env: string, opts: JournalOptions = {}) {
    this.warn = opts.warn ?? (() => {});
    this.now = opts.now ?? (() => new Date());
    this.place = opts.place;
    this.newHere = Boolean(opts.newHere);
    this.dir = opts.file ? dirname(opts.file) : join(dir, 'journal');
    // The folder is made at the first append, so that reading (history, a dry run) leaves no trace.
    this.file = opts.file ?? join(this.dir, journalFileName(profile, env));
  }

  append(event: Omit<JournalEvent, 'at' | 'place'>): JournalEvent {
    const full: JournalEvent = {
      at: this.now().toISOString(),
      ...event,
      ...(this.place ? { place: this.place } : {}),
    };
    if (full.data) {
      // Belt and braces: a secret never lands on disk, even if a caller passes one.
      full.data = Object.fromEntries(
        Object.entries(full.data).filter(([k, v]) => !forbidden.test(k) && v !== undefined),
      );
    }
    let fd: number;
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      fd = openSync(this.file, 'a+', 0o600);
    } catch (err) {
      throw this.unwritable(err);
    }
    try {
      // A line torn by a crash has no newline: start on a fresh line so this record stays whole.
      const size = fstatSync(fd).size;
      const last = Buffer.alloc(1);
      const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
      writeSync(fd, `${torn ? '\n' : ''}${JSON.stringify(full)}\n`);
      fsyncSync(fd);
    } catch (err) {
      throw this.unwritable(err);
    } finally {
      closeSync(fd);
    }
    this.lastAppended = full;
    return full;
  }

  private unwritable(err: unknown): LocalFileError {
    const e = err as NodeJS.ErrnoException;
    return new LocalFileError(`Cannot write the journal ${this.file} (${e.code ?? e.message})`, {
      cause: err,
      hint: 'Free disk space or make the folder writable: mpay records every money-moving request before it sends it',
    });
  }

  private readonly warned = new Set<number>();
  /**
   * What has been read of the file so far, folded. A batch asks for a record several times per row, so
   * reading the whole file each time made a run quadratic in the journal's length; now only the bytes
   * appended since the last read (by this process or another) are parsed. A file replaced by a prune
   * (another inode) or cut shorter is read again from the start.
   */
  private seen = emptyIndex('');

  private refresh(): void {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.seen = emptyIndex('');
        return;
      }
      throw new LocalFileError(
        `Cannot read the journal ${this.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        { cause: err, hint: 'Make the journal folder and its files readable by you' },
      );
    }
    try {
      const st = fstatSync(fd);
      const identity = `${st.dev}:${st.ino}`;
      if (identity !== this.seen.identity || st.size < this.seen.offset) {
        this.seen = emptyIndex(identity);
        this.warned.clear();
      }
      if (st.size === this.seen.offset) return;
      const buf = readBytes(fd, this.seen.offset, st.size);
      const got = buf.length;
      const end = buf.lastIndexOf(0x0a, got - 1);
      const whole = end < 0 ? '' : buf.toString('utf8', 0, end + 1);
      for (const line of whole.split('\n').slice(0, -1)) this.take(line, this.seen.line++);
      this.seen.offset += end + 1;
      // A last line without its newline: a record written by hand is taken; one torn by a crash (or still
      // being written by another process) is reported and read again next time, once it is whole.
      const tail = buf.toString('utf8', end + 1, got);
      if (tail.trim() && this.take(tail, this.seen.line, { tentative: true })) {
        this.seen.offset += Buffer.byteLength(tail);
        this.seen.line++;
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Folds one line into the index; false when it is not an event (reported once, by line number). */
  private take(line: string, index: number, opts: { tentative?: boolean } = {}): boolean {
    if (!line.trim()) return true;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      event = undefined;
    }
    if (isEvent(event)) {
      this.seen.events.push(event);
      let same = this.seen.byRef.get(event.reference);
      if (!same) this.seen.byRef.set(event.reference, (same = []));
      // One reference may live at two places (a batch run again elsewhere with --new-batch): a record a
      // place. A record from before places were written takes the first place its reference meets.
      let r = same.find((x) =>
        event.place ? !x.place || samePlace(x.place, event.place) : !x.place || same.length === 1,
      );
      if (!r) {
        r = {
          reference: event.reference,
          kind: event.kind,
          created_at: event.at,
          updated_at: event.at,
          steps: [],
        };
        same.push(r);
        this.seen.records.push(r);
      }
      fold(r, event);
      if (r.hash_token) this.seen.byHash.set(r.hash_token, r);
      return true;
    }
    if (!this.warned.has(index)) {
      // A line cut short by a crash mid-write, or edited by hand: skip it, keep every other record.
      this.warned.add(index);
      this.warn(
        `${this.file} line ${index + 1} is damaged and was skipped; the other records are intact (the line is left in the file)`,
      );
    }
    return opts.tentative ? false : true;
  }

  events(): JournalEvent[] {
    this.refresh();
    return [...this.seen.events];
  }

  /**
   * Removes the events of the transactions `drop` picks, rewriting the file atomically (a temporary file,
   * fsync, rename). Lines that do not parse are kept: nothing says whose they are. Returns the references
   * removed.
   *
   * Other mpay processes may append while this runs; appends take no lock (one line, one write), so the
   * prune keeps what they write instead: lines appended while it worked are copied into the new file
   * before the rename, and lines that still reached the old file (a writer that opened it just before the
   * rename) are copied after it. Only a writer that opened the file before the rename and writes after
   * the prune's last look would be missed; an append opens, writes and closes in one go. `hooks` lets a
   * test append at those two moments.
   */
  prune(
    drop: (r: JournalRecord) => boolean,
    hooks: { beforeRename?: () => void; afterRename?: () => void } = {},
  ): string[] {
    const gone = new Set(
      this.records()
        .filter(drop)
        .map((r) => r.reference),
    );
    if (gone.size === 0) return [];
    rewriteWithout(this.file, gone, hooks, (err) => this.unwritable(err));
    return [...gone];
  }

  /** Every transaction, folded from its events, oldest first (copies: callers may change them). */
  records(): JournalRecord[] {
    this.refresh();
    return this.seen.records.map((r) => structuredClone(r));
  }

  /** Every record of a hash token or reference in this file, whatever its place. */
  private matches(key: string): JournalRecord[] {
    this.refresh();
    const byHash = this.seen.byHash.get(key);
    return this.seen.byRef.get(key) ?? (byHash ? [byHash] : []);
  }

  find(key: string): JournalRecord | undefined {
    const all = this.matches(key);
    const here = this.place;
    if (!here) {
      // No place: the most recently updated record of the key.
      const latest = all.reduce<JournalRecord | undefined>(
        (a, r) => (!a || r.updated_at > a.updated_at ? r : a),
        undefined,
      );
      return latest && structuredClone(latest);
    }
    const own = all.find((r) => !r.place || samePlace(r.place, here));
    if (own) return structuredClone(own);
    if (this.newHere) return undefined;
    const elsewhere = this.elsewhere(key);
    if (elsewhere.length) throw elsewhereError(elsewhere, here);
    return undefined;
  }

  /**
   * Every record of a key that is not at this journal's place: in this file at other places, and in the
   * journals of the other profiles and environments (read on demand). The unfinished ones first.
   */
  elsewhere(key: string): JournalRecord[] {
    const here = this.place;
    const mine = this.matches(key).filter((r) => !here || (r.place && !samePlace(r.place, here)));
    const found = [...mine.map((r) => structuredClone(r)), ...this.inOtherJournals(key)];
    return found.sort((a, b) => Number(settled(a)) - Number(settled(b)));
  }

  /** Every record of a key in this file, whatever its place (copies). */
  recordsOf(key: string): JournalRecord[] {
    return this.matches(key).map((r) => structuredClone(r));
  }

  hold(key: string[], what: string): Promise<() => Promise<void>> {
    return holdLock(this.dir, lockName(...key), what);
  }

  private others?: Journal[];

  /** A record of the key in the journal of another profile or environment (read on a miss only). */
  private inOtherJournals(key: string): JournalRecord[] {
    if (!this.others) {
      let names: string[] = [];
      try {
        names = readdirSync(this.dir).filter((n) => n.endsWith('.jsonl') && join(this.dir, n) !== this.file);
      } catch {
        names = [];
      }
      this.others = names.map((n) => new Journal('', '', '', { file: join(this.dir, n) }));
    }
    return this.others.flatMap((j) => j.recordsOf(key));
  }
}

interface Index {
  /** the file's device and inode, to notice that it was replaced */
  identity: string;
  /** bytes read and folded */
  offset: number;
  /** whole lines read, for the line numbers of damaged ones */
  line: number;
  events: JournalEvent[];
  /** every record, in the order its first line came */
  records: JournalRecord[];
  /** the records of a reference: one a place */
  byRef: Map<string, JournalRecord[]>;
  byHash: Map<string, JournalRecord>;
}

function emptyIndex(identity: string): Index {
  return {
    identity,
    offset: 0,
    line: 0,
    events: [],
    records: [],
    byRef: new Map(),
    byHash: new Map(),
  };
}
