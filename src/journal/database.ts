// The journal's database: one SQLite file per config folder (journal/journal.db), opened through libsql in
// WAL mode with synchronous FULL, so that a record is on disk before the request it records leaves, and
// several mpay processes (a batch, a loop of single commands, `mpay run`) write it at once: each write is
// one BEGIN IMMEDIATE transaction, and a writer waits its turn (busy_timeout). The file, its -wal and -shm
// are 0600 in a 0700 folder (common/private-path.ts); a file there that is not mpay's journal (damaged, or
// another program's) is refused, exit 9, and never written. A journal of JSON lines that an older mpay
// kept beside it is imported at first use, once, and kept, renamed.
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  statSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
} from 'node:fs';
import { join } from 'node:path';
import { LocalFileError } from '../common/errors.js';
import { requirePrivate } from '../common/private-path.js';
import { singleQuoted } from '../common/shell-words.js';
import { importLazily } from '../lazy-import.js';
import { isEvent, type JournalEvent } from './records.js';

/** What mpay uses of libsql's (better-sqlite3's) API. */
export interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
  iterate(...params: unknown[]): IterableIterator<Record<string, unknown>>;
}
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}
type Driver = new (path: string) => Database;

let driver: Driver | undefined;

/**
 * Loads libsql before a journal is opened (the Factory does, as it makes one): only commands that use the
 * journal load it, so `countries`, `--help` and `--version` start without it.
 */
export async function loadSqlite(): Promise<void> {
  driver ??= ((m) => m.default ?? m)(await importLazily<{ default?: Driver } & Driver>('libsql'));
}

/** libsql, as loadSqlite() loaded it (the Factory, the tests' helpers and the scripts call it first). */
function sqlite(): Driver {
  if (!driver) throw new Error('the journal was opened before loadSqlite()');
  return driver;
}

/** The database's mark in its header: a SQLite file without it, that holds tables, is another program's. */
const applicationId = 0x6d706179; // "mpay"
const schemaVersion = 1;

const schema = `
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  journal TEXT NOT NULL,
  rec INTEGER NOT NULL,
  reference TEXT NOT NULL,
  hash_token TEXT,
  server TEXT,
  merchant TEXT,
  at TEXT NOT NULL,
  event TEXT NOT NULL
);
CREATE INDEX events_reference ON events(reference);
CREATE INDEX events_hash_token ON events(hash_token) WHERE hash_token IS NOT NULL;
CREATE INDEX events_place ON events(server, merchant);
CREATE INDEX events_record ON events(journal, rec, id);
CREATE TABLE imported (file TEXT PRIMARY KEY, at TEXT NOT NULL, events INTEGER NOT NULL);
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'the journal is append-only: a later step is a new row'); END;
PRAGMA application_id = ${applicationId};
PRAGMA user_version = ${schemaVersion};
`;

/** The open databases of this process, by file (every Journal of one folder shares its connection), with the file's identity. */
const open = new Map<string, { db: Database; dev: number; ino: number }>();

export interface OpenOptions {
  /** make the folder and the file when there are none (a write); else a missing journal reads as empty */
  create: boolean;
  /** the line said when an old journal of JSON lines is imported */
  note?: (message: string) => void;
  warn?: (message: string) => void;
  /** the first use by a Journal: an old journal of JSON lines put beside the database is imported */
  firstUse?: boolean;
}

/**
 * The database of a journal folder, checked and ready; undefined when it does not exist and `create` is
 * false (a read leaves no trace) and there is no old journal to import.
 */
export function openDatabase(dir: string, file: string, opts: OpenOptions): Database | undefined {
  const known = open.get(file);
  // An old journal put back beside the database (or one another mpay imported meanwhile) is looked at
  // once by each Journal of the process.
  if (known && opts.firstUse) importOld(known.db, dir, file, opts);
  if (known && !opts.create) return known.db;
  if (known) {
    // Before each write, the rule of private paths again: the folder or file replaced while mpay waited
    // (a link, another user's) is refused; another file of the user's in its place is opened anew.
    requirePrivate(dir, 'folder', 'journal');
    requirePrivate(file, 'file', 'journal');
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (st && st.dev === known.dev && st.ino === known.ino) return known.db;
    open.delete(file);
    known.db.close();
  }
  // The rule of private paths for the -wal and -shm that SQLite opens beside the file (the file itself: as
  // it is opened, below).
  for (const suffix of ['-wal', '-shm']) {
    const warning = requirePrivate(file + suffix, 'file', 'journal');
    if (warning) opts.warn?.(warning);
  }
  const old = oldJournals(dir);
  let there: boolean;
  try {
    there = journalFile(dir, file, opts.create || old.length > 0, opts.warn);
  } catch (err) {
    if (err instanceof LocalFileError) throw err;
    throw unwritable(file, err);
  }
  if (!there) return undefined;
  let db: Database;
  try {
    db = new (sqlite())(file);
  } catch (err) {
    throw storageError(file, err);
  }
  try {
    // First: every statement after it waits its turn behind another mpay's write (a new file's schema too).
    db.exec('PRAGMA busy_timeout = 30000');
    const id = one(db, 'PRAGMA application_id');
    const tables = one(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
    // Read before anything is written: a foreign database is left exactly as it was.
    if (id !== applicationId && (id !== 0 || tables !== 0)) throw foreign(file);
    if (id === applicationId && one(db, 'PRAGMA user_version') !== schemaVersion) throw foreign(file);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    // the WAL cut back to 64 MB after a checkpoint (an import writes gigabytes through it)
    db.exec('PRAGMA journal_size_limit = 67108864');
    if (tables === 0) immediate(db, () => one(db, 'PRAGMA application_id') === 0 && db.exec(schema));
  } catch (err) {
    db.close();
    throw storageError(file, err);
  }
  const st = statSync(file);
  open.set(file, { db, dev: st.dev, ino: st.ino });
  importOld(db, dir, file, opts);
  return db;
}

/**
 * The journal file, opened once (never through a link; without waiting on a FIFO) and then held to the rule
 * of private paths; made (0600) when `create` and there is none, or opened as it is when another mpay made
 * it first. false: there is none, and none was made.
 */
function journalFile(dir: string, file: string, create: boolean, warn?: (message: string) => void): boolean {
  const said = (warning: string | undefined) => warning && warn?.(warning);
  if (create) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    said(requirePrivate(dir, 'folder', 'journal'));
  }
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_CREAT } = constants;
  try {
    closeSync(openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (create ? O_CREAT : 0), 0o600));
  } catch (err) {
    // a link (ELOOP), a folder (EISDIR), another user's file (EACCES): refused as the rule says
    requirePrivate(file, 'file', 'journal');
    if (!create && (err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  said(requirePrivate(file, 'file', 'journal'));
  return true;
}

function one(db: Database, sql: string): unknown {
  const row = db.prepare(sql).get();
  return row ? Object.values(row)[0] : undefined;
}

/** Runs `fn` in one BEGIN IMMEDIATE transaction: one writer at a time, the others wait their turn. */
export function immediate<T>(db: Database, fn: () => T, time: BusyClock = clock): T {
  begin(db, time);
  try {
    const out = fn();
    db.exec('COMMIT');
    return out;
  } catch (err) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // the transaction was already gone (a failed COMMIT rolls back by itself)
    }
    throw err;
  }
}

/** The clock BEGIN's tries go by while SQLite answers busy (a test gives its own, on which no time passes). */
export interface BusyClock {
  now(): number;
  /** blocks the thread for `ms` ms: a write is synchronous */
  sleep(ms: number): unknown;
}
// The cell is made at each sleep, not when the module loads: the single executable's start-up snapshot
// runs this module where SharedArrayBuffer is not defined.
const clock: BusyClock = {
  now: Date.now,
  /** Atomics.wait on a cell no one wakes: it returns after `ms`. */
  sleep: (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
};

/**
 * BEGIN IMMEDIATE, tried again while SQLite answers SQLITE_BUSY: busy_timeout waits for a lock, but not
 * every BUSY goes through it (WAL's snapshot and recovery cases answer at once), and four mpay processes
 * writing one journal on a loaded machine met one. The waits between tries: 5 ms, doubled up to 100 ms;
 * given up at the first BUSY after 30 s, as busy_timeout.
 */
function begin(db: Database, time: BusyClock): void {
  const until = time.now() + 30_000;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      db.exec('BEGIN IMMEDIATE');
      return;
    } catch (err) {
      if (!String((err as { code?: unknown }).code).startsWith('SQLITE_BUSY') || time.now() > until)
        throw err;
      time.sleep(wait);
    }
  }
}

function foreign(file: string): LocalFileError {
  return new LocalFileError(
    `${file} is not an mpay journal (a damaged file, or another program's database); mpay will not read or write it, and nothing was sent`,
    {
      hint: `Move it aside (mv ${singleQuoted(file)} ${singleQuoted(`${file}.aside`)}): mpay then starts a new journal there. A damaged journal of mpay's may be mended from the moved copy with sqlite3's .recover`,
    },
  );
}

export function unwritable(file: string, err: unknown): LocalFileError {
  const e = err as NodeJS.ErrnoException;
  return new LocalFileError(`Cannot write the journal ${file} (${e.code ?? e.message})`, {
    cause: err,
    hint: 'Free disk space or make the folder writable: mpay records every money-moving request before it sends it',
  });
}

/** A database error as mpay tells it: a file that is no journal, or one that cannot be written. */
export function storageError(file: string, err: unknown): Error {
  if (err instanceof LocalFileError) return err;
  const code = String((err as { code?: unknown }).code);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return foreign(file);
  if (code.startsWith('SQLITE_BUSY'))
    return new LocalFileError(
      `Cannot write the journal ${file} (${code}): other mpay processes kept it busy for 30 s`,
      {
        cause: err,
        hint: 'Try again once they are done: a batch, a loop of commands or `mpay run` writing the same journal',
      },
    );
  if (code.startsWith('SQLITE_')) return unwritable(file, err);
  return err as Error;
}

/** The journals of JSON lines an older mpay kept in the folder, one a profile and environment. */
function oldJournals(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
}

/**
 * Imports each journal of JSON lines of the folder into the database, once: in one transaction with the
 * note that it was imported, so that a second process, or a run after a crash between the commit and the
 * rename, never imports it again. The file is then kept, renamed (NAME.jsonl.imported).
 */
function importOld(db: Database, dir: string, file: string, opts: OpenOptions): void {
  for (const name of oldJournals(dir)) {
    const path = join(dir, name);
    requirePrivate(path, 'file', 'journal');
    // A large page cache while importing: the indexes' pages, written in random order, are then written
    // to the WAL once, not again at each spill (a journal of 1,000,000 transactions: minutes less).
    db.exec('PRAGMA cache_size = -262144');
    const count = immediate(db, () => {
      if (db.prepare('SELECT 1 FROM imported WHERE file = ?').get(name)) return undefined;
      const journal = name.slice(0, -'.jsonl'.length);
      const write = appender(db);
      let n = 0;
      let damaged = 0;
      for (const line of lines(path)) {
        if (!line.trim()) continue;
        let e: unknown;
        try {
          e = JSON.parse(line);
        } catch {
          // not JSON: a damaged line, as one that is no event
        }
        if (!isEvent(e)) {
          damaged++;
          continue;
        }
        write(journal, e);
        n++;
      }
      if (damaged) opts.warn?.(`${damaged} damaged line(s) of ${path} were not imported (the file is kept)`);
      db.prepare('INSERT INTO imported (file, at, events) VALUES (?, ?, ?)').run(
        name,
        new Date().toISOString(),
        n,
      );
      return n;
    });
    db.exec('PRAGMA cache_size = -2000');
    // the WAL the import wrote through, emptied into the file (a file looked at again: a WAL emptied sooner)
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const kept = `${path}.imported`;
    try {
      renameSync(path, kept);
    } catch (err) {
      // another mpay renamed it first
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw unwritable(path, err);
    }
    if (count !== undefined)
      opts.note?.(
        `mpay: imported ${count} journal lines of ${path} into ${file}; the old file is kept as ${kept}`,
      );
  }
}

/** The insert of one event as a row: its record (`rec`) is the id of its reference's first row here. */
const appenders = new WeakMap<Database, (journal: string, e: JournalEvent) => void>();

export function appender(db: Database): (journal: string, e: JournalEvent) => void {
  const known = appenders.get(db);
  if (known) return known;
  const recOf = db.prepare('SELECT rec FROM events WHERE reference = ? AND journal = ? LIMIT 1');
  const next = db.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM events');
  const insert = db.prepare(
    'INSERT INTO events (id, journal, rec, reference, hash_token, server, merchant, at, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const write = (journal: string, e: JournalEvent) => {
    const id = next.get()!.id as number;
    const rec = (recOf.get(e.reference, journal)?.rec as number | undefined) ?? id;
    insert.run(
      id,
      journal,
      rec,
      e.reference,
      e.hash_token ?? null,
      e.place?.server ?? null,
      e.place?.merchant ?? null,
      e.at,
      JSON.stringify(e),
    );
  };
  appenders.set(db, write);
  return write;
}

/**
 * A file's lines, a megabyte at a time (an old journal may be larger than mpay should hold), with an empty
 * one where a read holds no newline or ends at one: the caller skips blank lines.
 */
function* lines(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1_048_576);
    let carry = Buffer.alloc(0);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) {
      const chunk = Buffer.concat([carry, buf.subarray(0, n)]);
      // after the last newline: a line cut by the end of the read waits for the next
      const end = chunk.lastIndexOf(0x0a) + 1;
      yield* chunk.toString('utf8', 0, end).split('\n');
      carry = Buffer.from(chunk.subarray(end));
    }
    yield carry.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
