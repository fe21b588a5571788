// What the sandbox holds (transactions, tokens, balances, request counts), in SQLite through libsql: a file
// with --data, in memory without, the same code. The changes of one turn of the event loop are one SQLite
// transaction, committed (WAL, synchronous FULL) before any of their answers is written; a write the disk
// refuses throws, and the route answers 500 (server.ts). Hash tokens are random and unique in the table, so
// never handed out twice. The file is held with an exclusive lock for the sandbox's life: a second sandbox
// is refused, naming the holder (FILE.lock).
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { BusyError } from '../common/errors.js';
import { dirname } from 'node:path';
import Database from 'libsql';
import type { StoredTransaction } from './state.js';
import type { Seed } from './seed.js';

/** A file where the database should be that is not the sandbox's, or is damaged: refused, left as it is. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    readonly what: string,
  ) {
    super(`${file}: ${what}`);
  }
}

export const formatVersion = 3;
const sqliteMagic = 'SQLite format 3\u0000';

const schema = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tx(id INTEGER PRIMARY KEY AUTOINCREMENT, hash_token TEXT NOT NULL UNIQUE,
  uuid TEXT NOT NULL, transaction_id TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
  reference TEXT NOT NULL UNIQUE, amount REAL NOT NULL, currency_code TEXT NOT NULL, country_code TEXT NOT NULL,
  first_name TEXT NOT NULL, last_name TEXT, phone TEXT NOT NULL, email TEXT NOT NULL, gateway_id INTEGER,
  wallet_address TEXT, otp_sent INTEGER NOT NULL DEFAULT 0, paid INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, processed_at TEXT);
CREATE TABLE IF NOT EXISTS tokens(token TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS balances(code TEXT PRIMARY KEY, value REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS requests(route TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS tx_added AFTER INSERT ON tx
  BEGIN UPDATE meta SET value = value + 1 WHERE key = 'transactions'; END;
CREATE TRIGGER IF NOT EXISTS tx_removed AFTER DELETE ON tx
  BEGIN UPDATE meta SET value = value - 1 WHERE key = 'transactions'; END;`;

const txColumns =
  'id, hash_token, uuid, transaction_id, kind, status, reference, amount, currency_code, country_code, first_name, last_name, phone, email, gateway_id, wallet_address, otp_sent, paid, created_at, processed_at';
type Row = Record<string, string | number | null>;

/** A row as mpay's own transaction (libsql adds `_metadata` to rows: only the columns are taken). */
function transactionOf(r: Row): StoredTransaction {
  const [first_name, last_name, phone, email] = [r.first_name, r.last_name, r.phone, r.email].map(String);
  const tx = {
    ...Object.fromEntries(txColumns.split(', ').flatMap((k) => (r[k] === null ? [] : [[k, r[k]]]))),
    kind: r.kind === 'withdraw' ? 'withdraw' : 'deposit',
    customer: { first_name, ...(r.last_name !== null && { last_name }), phone, email },
  } as StoredTransaction & Record<string, unknown>;
  for (const k of ['first_name', 'last_name', 'phone', 'email', 'otp_sent', 'paid']) delete tx[k];
  if (r.otp_sent) tx.otp_sent = true;
  if (r.paid) tx.paid = true;
  return tx;
}

const paramsOf = (t: StoredTransaction) => ({
  ...t,
  ...t.customer,
  last_name: t.customer.last_name ?? null,
  gateway_id: t.gateway_id ?? null,
  wallet_address: t.wallet_address ?? null,
  otp_sent: t.otp_sent ? 1 : 0,
  paid: t.paid ? 1 : 0,
  processed_at: t.processed_at ?? null,
  customer: undefined,
});

/** The first bytes of `file`: '' when there is none (or it is empty). */
function headOf(file: string): string {
  if (!fs.existsSync(file)) return '';
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(16);
    return buf.toString('latin1', 0, fs.readSync(fd, buf, 0, 16, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/** What the old formats (oldformat.ts) hand over to be written into a new database. */
export interface Imported {
  /** the old format's number: the old file is kept as FILE.formatN */
  format: number;
  transactions: StoredTransaction[];
  tokens: string[];
  balances: Record<string, number>;
  seq: number;
}

export class SandboxStore {
  private readonly q;
  /** counts the changes of balances (the merchant currencies answer is cached until one) */
  balanceChanges = 0;
  /** requests counted since the last commit: written with the next change, or when read */
  private readonly counted = new Map<string, number>();

  private constructor(
    private readonly db: Database.Database,
    seed: Seed,
    private readonly file?: string,
  ) {
    // the tables and the format's row in one transaction: a file of the sandbox's always has both; the
    // number of transactions, kept by the triggers so that a start reads one row, not the whole table (1.5 s
    // at 1,000,000 rows off a cold disk), counted once for a file made before it was kept
    db.transaction(() => {
      db.exec(schema);
      if (db.prepare("INSERT OR IGNORE INTO meta VALUES ('mpay_sandbox', ?)").run(formatVersion).changes)
        for (const c of seed.currencies)
          db.prepare('INSERT INTO balances VALUES (?, ?)').run(c.currency.code, c.balance);
      // (asked first: INSERT OR IGNORE would count the table before it found the row there)
      if (!db.prepare("SELECT 1 FROM meta WHERE key = 'transactions'").get())
        db.exec("INSERT INTO meta SELECT 'transactions', count(*) FROM tx");
    })();
    this.q = {
      // a new transaction's id null (the next one), an imported one's its own
      insert: db.prepare(`INSERT INTO tx(${txColumns}) VALUES (${txColumns.replace(/(\w+)/g, '@$1')})`),
      update: db.prepare(
        'UPDATE tx SET status=@status, gateway_id=@gateway_id, wallet_address=@wallet_address, otp_sent=@otp_sent, paid=@paid, processed_at=@processed_at WHERE id=@id',
      ),
      byHash: db.prepare(`SELECT ${txColumns} FROM tx WHERE hash_token=?`),
      hasRef: db.prepare('SELECT 1 FROM tx WHERE reference=?').raw(true),
      all: db.prepare(`SELECT ${txColumns} FROM tx ORDER BY id`),
      size: db.prepare("SELECT value FROM meta WHERE key = 'transactions'").raw(true),
      hasToken: db.prepare('SELECT 1 FROM tokens WHERE token=?').raw(true),
      addToken: db.prepare('INSERT OR IGNORE INTO tokens VALUES (?)'),
      balances: db.prepare('SELECT code, value FROM balances').raw(true),
      setBalance: db.prepare('INSERT OR REPLACE INTO balances VALUES (?, ?)'),
      count: db.prepare(
        'INSERT INTO requests VALUES (?, ?) ON CONFLICT(route) DO UPDATE SET n = n + excluded.n',
      ),
      counts: db.prepare('SELECT route, n FROM requests').raw(true),
    };
  }

  /**
   * The store of `file` (in memory without one), locked for this process. A file of the old formats is
   * imported first by `importOld`, into a new database made beside it and renamed over it, the old file kept.
   */
  static open(
    file: string | undefined,
    seed: Seed,
    importOld: (file: string) => Imported,
  ): { store: SandboxStore; imported?: { keptAs: string; transactions: number } } {
    if (!file) return { store: new SandboxStore(new Database(':memory:'), seed) };
    fs.mkdirSync(dirname(file), { recursive: true });
    const head = headOf(file);
    let imported;
    if (head && head !== sqliteMagic) {
      const old = importOld(file);
      const tmp = `${file}.importing`;
      fs.rmSync(tmp, { force: true });
      const into = new SandboxStore(SandboxStore.connect(tmp, file), seed, tmp);
      try {
        into.fill(old);
      } catch (err) {
        // what the old file holds breaks a rule of the database (a reference twice): nothing is replaced
        into.close();
        fs.rmSync(tmp, { force: true });
        throw new DataFileError(file, `cannot be imported: ${(err as Error).message}`);
      }
      into.close();
      const keptAs = `${file}.format${old.format}`;
      try {
        fs.copyFileSync(file, keptAs, fs.constants.COPYFILE_EXCL);
      } catch (err) {
        // kept by an import interrupted before its end
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      fs.renameSync(tmp, file);
      if (fs.existsSync(`${file}.snapshot`)) fs.renameSync(`${file}.snapshot`, `${keptAs}.snapshot`);
      imported = { keptAs, transactions: old.transactions.length };
    }
    const db = SandboxStore.connect(file, file, (db) => {
      const one = (sql: string) => (db.prepare(sql).raw(true).get() as unknown[] | undefined)?.[0];
      const format =
        head && one("SELECT 1 FROM sqlite_master WHERE name = 'meta'")
          ? one("SELECT value FROM meta WHERE key = 'mpay_sandbox'")
          : undefined;
      if (head && format !== formatVersion)
        throw new DataFileError(
          file,
          format === undefined
            ? 'an SQLite database, but not the sandbox\'s (no mpay_sandbox row in a table "meta")'
            : `a sandbox database of format ${String(format)}, which this mpay does not read`,
        );
    });
    return { store: new SandboxStore(db, seed, file), imported };
  }

  /**
   * A connection to `file` in WAL mode, committed with synchronous FULL, held with an exclusive lock until
   * it closes (the system releases it when the process dies, kill -9 too); its holder named in FILE.lock.
   */
  private static connect(
    file: string,
    named: string,
    check?: (db: Database.Database) => void,
  ): Database.Database {
    let db: Database.Database | undefined;
    try {
      fs.closeSync(fs.openSync(file, 'a', 0o600));
      db = new Database(file, { timeout: 0 });
      // takes the lock now: a second sandbox on the file is refused at its start, not at its first write
      db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT');
      try {
        // before anything is written: a file that is not the sandbox's is left as it was
        check?.(db);
      } catch (err) {
        db.exec('PRAGMA locking_mode = NORMAL; SELECT 1 FROM sqlite_master');
        throw err;
      }
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL');
      try {
        fs.writeFileSync(
          `${file}.lock`,
          JSON.stringify({ pid: process.pid, since: new Date().toISOString() }),
        );
      } catch {
        // a full disk: the lock holds without the note that names its holder
      }
      return db;
    } catch (err) {
      db?.close();
      const code = (err as { code?: string }).code;
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
        throw new DataFileError(named, `not a database, or a damaged one (${(err as Error).message})`);
      if (code !== 'SQLITE_BUSY') throw err;
      let holder = '';
      try {
        const o = JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')) as { pid: number; since: string };
        holder = ` (pid ${o.pid}, since ${o.since.slice(0, 19).replace('T', ' ')} UTC)`;
      } catch {
        // named by no file: its holder has not written it yet
      }
      throw new BusyError(`Another sandbox${holder} is using the data file ${named}; nothing was written`, {
        hint: 'Stop that sandbox first, or give this one another --data file',
      });
    }
  }

  private fill({ transactions, tokens, balances, seq }: Imported): void {
    this.change(() => {
      for (const t of transactions) this.q.insert.run(paramsOf(t));
      for (const t of tokens) this.q.addToken.run(t);
      for (const [code, value] of Object.entries(balances)) this.q.setBalance.run(code, value);
      this.db.prepare("INSERT OR REPLACE INTO sqlite_sequence(name, seq) VALUES ('tx', ?)").run(seq);
    });
  }

  /** The changes of this turn of the event loop: one transaction, committed (and synced) together. */
  private group?: { done: Promise<void>; settle: (err?: unknown) => void; broken?: unknown };
  /** how deep `change` calls run inside one another: only the outermost makes a savepoint */
  private depth = 0;

  /**
   * Runs `fn`'s writes in this turn's transaction (group commit: one sync for the changes of many
   * requests); `committed()` resolves once it is committed, and only then is an answer written. A write
   * the disk refuses may roll back the whole transaction: then every change of the turn fails, and each
   * of its requests is answered 500.
   */
  change<T>(fn: () => T): T {
    if (this.group?.broken) throw this.group.broken;
    if (!this.group) {
      // not libsql's transaction(): its ROLLBACK after a write SQLite already rolled back throws, and hides
      // the error that says why (a full disk)
      this.db.exec('BEGIN IMMEDIATE');
      let settle!: (err?: unknown) => void;
      const done = new Promise<void>(
        (resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())),
      );
      done.catch(() => {});
      this.group = { done, settle };
      setImmediate(() => this.commit());
    }
    if (this.depth > 0) return fn();
    // a savepoint: a change that fails leaves nothing of itself in the turn's transaction
    this.db.exec('SAVEPOINT change');
    this.depth++;
    try {
      // the requests counted so far go with it
      for (const [route, n] of this.counted) this.q.count.run(route, n);
      this.counted.clear();
      const done = fn();
      this.db.exec('RELEASE change');
      return done;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK TO change; RELEASE change');
      else this.group.broken = err;
      throw err;
    } finally {
      this.depth--;
    }
  }

  /** Resolves once every change made so far is committed; rejects if their commit failed. */
  committed(): Promise<void> {
    return this.group?.done ?? Promise.resolve();
  }

  private commit(): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    try {
      if (group.broken) throw group.broken;
      this.db.exec('COMMIT');
      group.settle();
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      group.settle(err);
    }
  }

  close(): void {
    if (!this.db.open) return;
    this.commit();
    // libsql closes the connection only once its statements are collected: the lock is released first,
    // the write-ahead log folded into the file, for another start (a test's, in this process) to take it
    try {
      this.db.exec('PRAGMA journal_mode = DELETE; PRAGMA locking_mode = NORMAL; SELECT 1 FROM meta');
    } finally {
      // a disk that refuses the fold leaves the log beside the file, read at the next start
      this.db.close();
    }
    if (this.file) fs.rmSync(`${this.file}.lock`, { force: true });
  }

  // Transactions ---------------------------------------------------------------------------------------

  /** Stores a new transaction: its id the next one, its hash token, uuid and transaction_id random. */
  add(t: Omit<StoredTransaction, 'id' | 'uuid' | 'transaction_id' | 'hash_token'>): StoredTransaction {
    const tx = {
      ...t,
      id: 0,
      uuid: randomUUID(),
      transaction_id: `TXN${Date.now().toString(36).toUpperCase()}${randomBytes(3).toString('hex').toUpperCase()}`,
      hash_token: randomBytes(32).toString('hex'),
    };
    tx.id = Number(this.change(() => this.q.insert.run({ ...paramsOf(tx), id: null })).lastInsertRowid);
    return tx;
  }

  /** Saves the changes made to a transaction (its status and what follows initiate). */
  save(tx: StoredTransaction): void {
    this.change(() => this.q.update.run(paramsOf(tx)));
  }

  byHash(hash: string): StoredTransaction | undefined {
    const row = this.q.byHash.get(hash) as Row | undefined;
    return row && transactionOf(row);
  }

  readonly references = { has: (ref: string) => this.q.hasRef.get(ref) !== undefined };

  list(): StoredTransaction[] {
    return (this.q.all.all() as Row[]).map(transactionOf);
  }

  size(): number {
    return Number((this.q.size.get() as [number])[0]);
  }

  // Tokens, balances, requests ----------------------------------------------------------------------------

  hasToken(token: string): boolean {
    return this.q.hasToken.get(token) !== undefined;
  }

  addToken(token: string): void {
    this.change(() => this.q.addToken.run(token));
  }

  revokeTokens(): number {
    return this.change(() => this.db.prepare('DELETE FROM tokens').run().changes);
  }

  balances(): Map<string, number> {
    return new Map((this.q.balances.all() as [string, number][]).map(([c, v]) => [c, v]));
  }

  setBalance(code: string, value: number): void {
    this.q.setBalance.run(code, value);
    this.balanceChanges++;
  }

  count(route: string): void {
    this.counted.set(route, (this.counted.get(route) ?? 0) + 1);
  }

  requestCounts(): Record<string, number> {
    this.change(() => {}); // the counts not written yet, written
    return Object.fromEntries(this.q.counts.all() as [string, number][]);
  }
}
