// The durable local record of every transaction mpay starts: the events of each profile's and
// environment's journal, rows of the config folder's database (database.ts). Each step is written before it
// is sent and again when its outcome is known, each a new row committed with synchronous FULL, so a crash,
// a dropped connection or Ctrl-C never loses a hash token or a reference that reached the server, and a
// row once written is never rewritten (only `mpay history prune` removes a settled record whole). Several
// mpay processes share the database. No secret is ever written here. Here are the journal's writes, its
// queries, and the rules of its answers (a record's place, a hash token's start).
import { join } from 'node:path';
import { transactionFields } from '../api/transaction-fields.js';
import { UsageError } from '../common/errors.js';
import { requirePrivate } from '../common/private-path.js';
import { holdLock, lockName, type Held } from './locks.js';
import { elsewhereError } from './elsewhere.js';
import { journalName } from './file-name.js';
import {
  foldRecords,
  samePlace,
  settled,
  type JournalEvent,
  type JournalRecord,
  type Place,
} from './records.js';
import { appender, immediate, openDatabase, storageError, type Database } from './database.js';

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

export interface JournalOptions {
  /** told when a folder or file was made private again */
  warn?: (message: string) => void;
  /** told once when an old journal of JSON lines is imported */
  note?: (message: string) => void;
  /** the clock of the journal's timestamps */
  now?: () => Date;
  /**
   * The server and merchant of this run. Every event appended carries it, and find() answers only with
   * records made there; without it (history, support) the journal reads every record.
   */
  place?: Place;
  /**
   * `mpay deposit batch --new-batch`: a key whose records all live elsewhere is new here, instead of
   * refused. Records here are still found.
   */
  newHere?: boolean;
  /**
   * The run's secrets replaced by value in what a line records (the Factory's `secrets.byValue`), but under
   * the names in `keep`: a token a scenario captured and a later money step sends in its body never lands on
   * disk, and so never reaches history, its export or a support bundle (issue 46).
   */
  scrub?: (data: Record<string, unknown>, keep: ReadonlySet<string>) => Record<string, unknown>;
}

/**
 * What a line's scrub keeps: the fields that name the transaction (the endpoint table's `names`), which resume and
 * history find the record by and are no secret of the run; and the amount, which answers are checked
 * against and a run's one-time code (123456 on the sandbox) would turn into *** on a withdrawal of 123456.
 */
const kept: ReadonlySet<string> = new Set([...transactionFields, 'amount']);

/**
 * The events of a key (a reference, or a hash token: its references) in the journals `where` picks. Its
 * `+journal` keeps the planner on the reference's index: the journal's own would read every row of it.
 */
const byKey = (where: string) =>
  `SELECT journal, event FROM events WHERE ${where} AND reference IN (SELECT ? UNION SELECT reference FROM events WHERE hash_token = ?) ORDER BY journal, id`;

export class Journal implements JournalLike {
  /** the database of the folder */
  readonly file: string;
  readonly dir: string;
  /** this profile's and environment's journal in it */
  readonly name: string;
  lastAppended?: JournalEvent;
  private readonly now: () => Date;
  readonly place?: Place;
  private readonly newHere: boolean;
  private readonly opts: JournalOptions;

  constructor(dir: string, profile: string, env: string, opts: JournalOptions = {}) {
    this.opts = opts;
    this.now = opts.now ?? (() => new Date());
    this.place = opts.place;
    this.newHere = Boolean(opts.newHere);
    this.dir = join(dir, 'journal');
    // The folder and file are made at the first append, so that reading (history, a dry run) leaves no trace.
    this.file = join(this.dir, 'journal.db');
    this.name = journalName(profile, env);
    // The rule of every folder mpay keeps (common/private-path.ts), before a record is read or written: a
    // journal another user could write could say a row was done, or take the customers' data.
    for (const [path, kind] of [
      [this.dir, 'folder'],
      [this.file, 'file'],
    ] as const) {
      const warning = requirePrivate(path, kind, 'journal');
      if (warning) opts.warn?.(warning);
    }
  }

  /** The database, opened at first use; undefined: there is none yet, and `create` is false. */
  private db(create = false): Database | undefined {
    const firstUse = !this.used;
    const db = openDatabase(this.dir, this.file, { create, firstUse, ...this.opts });
    this.used ||= db !== undefined;
    return db;
  }
  private used = false;

  /** A read of the database: nothing when there is none; its errors told as mpay tells them. */
  private read<T>(none: T, fn: (db: Database) => T): T {
    try {
      const db = this.db();
      return db ? fn(db) : none;
    } catch (err) {
      throw storageError(this.file, err);
    }
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
      // and a value the run holds as a secret, under whatever name it came (the reference and the hash
      // token stand outside data, untouched: they key the record)
      if (this.opts.scrub) full.data = this.opts.scrub(full.data, kept);
    }
    try {
      const db = this.db(true)!;
      const write = appender(db);
      // Committed (synchronous FULL) before append returns, and so before the request leaves.
      immediate(db, () => write(this.name, full));
    } catch (err) {
      throw storageError(this.file, err);
    }
    this.lastAppended = full;
    return full;
  }

  /** The connection's durability settings (journal_mode, synchronous), as SQLite reports them. */
  durability(): { journal_mode: string; synchronous: number } | undefined {
    return this.read(undefined, (db) => ({
      journal_mode: String(db.prepare('PRAGMA journal_mode').get()!.journal_mode),
      synchronous: Number(db.prepare('PRAGMA synchronous').get()!.synchronous),
    }));
  }

  /** The events of a key in this journal, oldest first. */
  eventsOf(key: string): JournalEvent[] {
    return this.read([], (db) =>
      db
        .prepare(byKey('+journal = ?'))
        .all(this.name, key, key)
        .map((r) => JSON.parse(String(r.event)) as JournalEvent),
    );
  }

  /** Every record of a hash token or reference in this journal, whatever its place. */
  private matches(key: string): JournalRecord[] {
    return foldRecords(this.eventsOf(key));
  }

  /**
   * The records of this journal, newest first (by their first event), each whole, read from the database
   * as the caller asks: a caller that stops after N reads only N. With `since` (ms), records made before
   * then are not given. `oldest` gives them oldest first (an export).
   */
  *newest(opts: { since?: number; oldest?: boolean } = {}): Generator<JournalRecord> {
    // A record's rows as one JSON array, oldest first: a quarter of the rows to step through, one parse each.
    const rows = this.read(undefined, (db) =>
      db
        .prepare(
          `SELECT '[' || group_concat(event, ',' ORDER BY id) || ']' AS events FROM events WHERE journal = ? GROUP BY rec ORDER BY rec ${opts.oldest ? '' : 'DESC'}`,
        )
        .iterate(this.name),
    );
    if (!rows) return;
    const since = opts.since ?? -Infinity;
    try {
      for (const row of rows) {
        const events = JSON.parse(String(row.events)) as JournalEvent[];
        // A record made before `since`: newest first, every later one is older still.
        if (Date.parse(events[0]!.at) < since) {
          if (opts.oldest) continue;
          return;
        }
        const folded = foldRecords(events);
        yield* opts.oldest ? folded : folded.reverse();
      }
    } catch (err) {
      throw storageError(this.file, err);
    }
  }

  /** Every event of this journal written since `since` (ms), oldest first. */
  eventsSince(since: number): JournalEvent[] {
    const from = Number.isFinite(since) ? new Date(since).toISOString() : '';
    return this.read([], (db) =>
      db
        .prepare('SELECT event FROM events WHERE +journal = ? AND at >= ? ORDER BY id')
        .all(this.name, from)
        .map((r) => JSON.parse(String(r.event)) as JournalEvent),
    );
  }

  /** Every event of the journal, oldest first (a whole read: tests, and the support bundle's whole journal). */
  events(): JournalEvent[] {
    return this.eventsSince(-Infinity);
  }

  /**
   * Removes the events of the transactions `drop` picks, in one transaction (other mpay processes' writes
   * wait their turn, and none is lost). Returns the references removed.
   */
  prune(drop: (r: JournalRecord) => boolean): string[] {
    const gone = new Set<string>();
    for (const r of this.newest()) if (drop(r)) gone.add(r.reference);
    return this.pruneReferences(gone);
  }

  /** prune() of transactions already picked by reference (a caller that walked the journal itself). */
  pruneReferences(gone: Set<string>): string[] {
    if (gone.size === 0) return [];
    this.read(undefined, (db) => {
      const remove = db.prepare('DELETE FROM events WHERE journal = ? AND reference = ?');
      immediate(db, () => {
        for (const reference of gone) remove.run(this.name, reference);
      });
    });
    return [...gone];
  }

  /** Every transaction, folded from its events, oldest first (a whole read: tests, and small journals). */
  records(): JournalRecord[] {
    return [...this.newest({ oldest: true })];
  }

  find(key: string): JournalRecord | undefined {
    const all = this.matches(key);
    const here = this.place;
    if (!here) {
      // No place: the most recently updated record of the key.
      return all.reduce<JournalRecord | undefined>(
        (a, r) => (!a || r.updated_at > a.updated_at ? r : a),
        undefined,
      );
    }
    const own = all.find((r) => !r.place || samePlace(r.place, here));
    if (own) return own;
    if (this.newHere) return undefined;
    const elsewhere = this.elsewhere(key);
    if (elsewhere.length) throw elsewhereError(elsewhere, here);
    return undefined;
  }

  /**
   * Every record of a key that is not at this journal's place: in this journal at other places, and in
   * the journals of the other profiles and environments. The unfinished ones first.
   */
  elsewhere(key: string): JournalRecord[] {
    const here = this.place;
    const mine = this.matches(key).filter((r) => !here || (r.place && !samePlace(r.place, here)));
    const others = this.read([], (db) => db.prepare(byKey('+journal <> ?')).all(this.name, key, key));
    const byJournal = new Map<string, JournalEvent[]>();
    for (const r of others) {
      const list = byJournal.get(String(r.journal)) ?? [];
      list.push(JSON.parse(String(r.event)) as JournalEvent);
      byJournal.set(String(r.journal), list);
    }
    const found = [...mine, ...[...byJournal.values()].flatMap((events) => foldRecords(events))];
    return found.sort((a, b) => Number(settled(a)) - Number(settled(b)));
  }

  /**
   * The key a person gave, as the journal knows it: a reference or hash token as given, or the start of
   * a hash token as `history` shows it (an ellipsis pasted with it is ignored, any case), when one record
   * of this journal starts so: then its reference. Several that start so: a usage error naming them.
   */
  expand(key: string): string {
    if (this.matches(key).length > 0) return key;
    const prefix = key.replace(/(…|\.\.\.)$/, '').toLowerCase();
    // Hash tokens are hex: anything else is a reference, which the journal has or has not.
    if (prefix.length < 4 || !/^[0-9a-f]+$/.test(prefix)) return key;
    const found = this.read([], (db) =>
      db
        .prepare(
          'SELECT DISTINCT reference FROM events WHERE hash_token >= ? AND hash_token < ? AND +journal = ? LIMIT 20',
        )
        .all(prefix, `${prefix}g`, this.name)
        .map((r) => String(r.reference)),
    );
    if (found.length > 1)
      throw new UsageError(`"${prefix}" starts ${found.length} hash tokens`, {
        hint: `Give more of it, or the reference: ${found.join(', ')}`,
      });
    return found[0] ?? key;
  }

  /** Every record of a key in this journal, whatever its place. */
  recordsOf(key: string): JournalRecord[] {
    return this.matches(key);
  }

  hold(key: string[], what: string): Promise<Held> {
    return holdLock(this.dir, lockName(...key), what, this.opts.warn);
  }
}
