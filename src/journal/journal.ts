// The durable local record of every transaction mpay starts: one append-only JSON-lines file per
// profile and environment. Each step is written before it is sent and again when its outcome is known,
// with fsync, so a crash, a dropped connection or Ctrl-C never loses a hash token or a reference that
// reached the server. Appends of one line each are atomic on local file systems, so several mpay
// processes can share a journal. No secret is ever written here. The file is read through log-view.ts (its
// index, and the lines appended since); here are its writes, and the rules of its answers (a record's
// place, a hash token's start).
import {
  closeSync,
  constants,
  readdirSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { LocalFileError, UsageError } from '../api/errors.js';
import { foreignPath, requirePrivate } from '../api/private-path.js';
import { holdLock, lockName, type Held } from './locks.js';
import { rewriteWithout } from './prune.js';
import { LogView, type LogViewOptions } from './log-view.js';
import { elsewhereError } from './elsewhere.js';
import { journalFileName } from './file-name.js';
import {
  foldRecords,
  samePlace,
  settled,
  type JournalEvent,
  type JournalRecord,
  type Place,
} from './records.js';

const forbidden = /^(merchant_key|api_key|otp|token|authorization)$/i;

/** What flows need of a journal. */
export interface JournalLike {
  append(event: Omit<JournalEvent, 'at' | 'place'>): JournalEvent;
  /**
   * The record of a hash token or reference at this journal's place. A journal with a place refuses
   * (ElsewhereError) a key whose only record lives at another server or merchant, or in another profile's
   * or environment's journal: that transaction is continued only there.
   */
  find(key: string): JournalRecord | undefined;
  /** a hash token's start as `history` shows it, expanded to its reference (Journal.expand) */
  expand?(key: string): string;
  /** the last event this process appended: what an interrupted command was doing */
  readonly lastAppended?: JournalEvent;
  /** where this journal's new records live (absent: a journal that records nothing, or reads only) */
  readonly place?: Place;
  /**
   * Takes the lock of what `key` names (a transaction, a batch's file) for this process, or refuses with
   * a BusyError naming `what`; returns the release (journal/locks.ts).
   */
  hold(key: string[], what: string): Promise<Held>;
}

/** The view's options (LogViewOptions: warn, onIndex, indexFrom), and the journal's own. */
export interface JournalOptions extends LogViewOptions {
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
  private readonly now: () => Date;
  readonly place?: Place;
  private readonly newHere: boolean;
  /** the file as read: its index, and the lines past it */
  private readonly view: LogView;

  constructor(dir: string, profile: string, env: string, opts: JournalOptions = {}) {
    this.now = opts.now ?? (() => new Date());
    this.place = opts.place;
    this.newHere = Boolean(opts.newHere);
    this.dir = opts.file ? dirname(opts.file) : join(dir, 'journal');
    // The folder is made at the first append, so that reading (history, a dry run) leaves no trace.
    this.file = opts.file ?? join(this.dir, journalFileName(profile, env));
    // The rule of every folder mpay keeps (api/private-path.ts), before a line is read or written: a
    // journal another user could write could say a row was done, or take the customers' data.
    for (const [path, kind] of [
      [this.dir, 'folder'],
      [this.file, 'file'],
    ] as const) {
      const warning = requirePrivate(path, kind, 'journal');
      if (warning) opts.warn?.(warning);
    }
    this.view = new LogView(this.file, opts);
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
      requirePrivate(dirname(this.file), 'folder', 'journal');
      // never through a link, and only a file of this user's that no one else can write
      fd = openSync(
        this.file,
        constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
        0o600,
      );
    } catch (err) {
      if (err instanceof LocalFileError) throw err;
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') requirePrivate(this.file, 'file', 'journal');
      throw this.unwritable(err);
    }
    const refusal = foreignPath(this.file, fstatSync(fd), 'file', 'journal');
    if (refusal) {
      closeSync(fd);
      throw refusal;
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

  /** Every record of a hash token or reference in this file, whatever its place. */
  private matches(key: string): JournalRecord[] {
    return foldRecords(this.view.eventLines(key).map((l) => l.event!));
  }

  /** The events of one transaction (by hash token or reference), oldest first. */
  eventsOf(key: string): JournalEvent[] {
    return this.view.eventLines(key).map((l) => l.event!);
  }

  /**
   * The records of this file, newest first (by their first line), each whole, read backwards from the
   * end: a caller that stops after N reads only as far back as the N-th newest. With `since` (ms), the
   * read stops at the lines written before then: records made before `since` are not given.
   */
  newest(opts: { since?: number } = {}): Generator<JournalRecord> {
    return this.view.newest(opts);
  }

  /** Every event of this file written since `since` (ms), oldest first, read back from the end. */
  eventsSince(since: number): JournalEvent[] {
    return this.view.eventsSince(since);
  }

  /** Every event of the file, oldest first (a whole read: tests, and the support bundle's whole journal). */
  events(): JournalEvent[] {
    return this.eventsSince(-Infinity);
  }

  /**
   * Removes the events of the transactions `drop` picks, rewriting the file atomically (a temporary file,
   * fsync, rename). Lines that do not parse are kept: nothing says whose they are. Returns the references
   * removed, and how many records were looked at.
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
    const gone = new Set<string>();
    for (const r of this.newest()) if (drop(r)) gone.add(r.reference);
    return this.pruneReferences(gone, hooks);
  }

  /** prune() of transactions already picked by reference (a caller that walked the journal itself). */
  pruneReferences(
    gone: Set<string>,
    hooks: { beforeRename?: () => void; afterRename?: () => void } = {},
  ): string[] {
    if (gone.size === 0) return [];
    rewriteWithout(this.file, gone, hooks, (err) => this.unwritable(err));
    // The removed transactions' keys go with them: the index is built again for the new file.
    this.view.forgetIndex();
    return [...gone];
  }

  /** Every transaction, folded from its events, oldest first (a whole read: tests, and small files). */
  records(): JournalRecord[] {
    return [...this.newest()].reverse();
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

  /**
   * The key a person gave, as the journal knows it: a reference or hash token as given, or the start of
   * a hash token as `history` shows it (an ellipsis pasted with it is ignored, any case), when one record
   * of this file starts so: then its reference. Several that start so: a usage error naming them.
   */
  expand(key: string): string {
    if (this.matches(key).length > 0) return key;
    const prefix = key.replace(/(…|\.\.\.)$/, '').toLowerCase();
    // Hash tokens are hex: anything else is a reference, which the index has or has not.
    if (prefix.length < 4 || !/^[0-9a-f]+$/.test(prefix)) return key;
    // A prefix cannot be looked up in the index: the journal is read back until its end.
    const found = new Set<string>();
    for (const r of this.newest()) if (r.hash_token?.startsWith(prefix)) found.add(r.reference);
    if (found.size > 1)
      throw new UsageError(`"${prefix}" starts ${found.size} hash tokens`, {
        hint: `Give more of it, or the reference: ${[...found].join(', ')}`,
      });
    return [...found][0] ?? key;
  }

  /** Every record of a key in this file, whatever its place (copies). */
  recordsOf(key: string): JournalRecord[] {
    return this.matches(key).map((r) => structuredClone(r));
  }

  hold(key: string[], what: string): Promise<Held> {
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
