// What the sandbox holds (transactions, tokens, balances, the last id) and every change to it, each written
// to the --data log as it is made (data-log.ts). The rules of the API are in state.ts; reading the holdings
// back at a start is in state-file.ts; their snapshot in state-snapshot.ts.
import type { DataLog, Line } from './data-log.js';
import { TxStore, type Mutable, type NewTransaction, type StoredTransaction } from './tx-store.js';
import { DataFileError } from './data-log.js';
import type { Seed } from './seed.js';

const nul = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const time = (iso: string | undefined): number | null => (iso ? Date.parse(iso) : null);
/** The changing part of a transaction, as the data file writes it. */
const mutableLine = (t: Mutable): Line => [
  t.status,
  nul(t.gateway_id),
  nul(t.wallet_address),
  t.otp_sent ? 1 : 0,
  t.paid ? 1 : 0,
  time(t.processed_at),
];

export class Holdings {
  seq = 0;
  readonly tokens = new Set<string>();
  store = new TxStore();
  readonly balances = new Map<string, number>();
  /** counts the changes of balances (the merchant currencies answer is cached until one) */
  balanceChanges = 0;
  /** the open log, with --data */
  data?: DataLog;
  /** told of each line appended (the snapshot's schedule counts them) */
  onAppend?: () => void;

  constructor(private readonly seed: Seed) {
    for (const c of seed.currencies) this.balances.set(c.currency.code, c.balance);
  }

  /** Back to the holdings of an empty log with this secret (before the log is read again). */
  reset(secret: Buffer): void {
    this.seq = 0;
    this.tokens.clear();
    this.store = new TxStore(secret);
    this.balances.clear();
    for (const c of this.seed.currencies) this.setBalance(c.currency.code, c.balance);
  }

  private append(line: Line): void {
    if (!this.data) return;
    this.data.append(line);
    this.onAppend?.();
  }

  // Changes -----------------------------------------------------------------------------------------------

  /** Stores a new transaction (its id the next one); its index. */
  addTransaction(t: NewTransaction): number {
    const i = this.store.add(t);
    this.append(this.txLine(i, t));
    return i;
  }

  /** Saves the changes made to a copy of transaction `i`. */
  save(i: number, tx: Mutable): void {
    this.store.set(i, tx);
    this.append(['u', i, ...mutableLine(tx)]);
  }

  addToken(token: string): void {
    this.tokens.add(token);
    this.append(['k', token]);
  }

  revokeTokens(): number {
    const n = this.tokens.size;
    this.tokens.clear();
    this.append(['r']);
    return n;
  }

  setBalance(code: string, value: number): void {
    this.balances.set(code, value);
    this.balanceChanges++;
  }

  changeBalance(code: string, value: number): void {
    this.setBalance(code, value);
    this.append(['b', code, value]);
  }

  // The log's lines ---------------------------------------------------------------------------------------

  /** Applies one line of the data file (see data-log.ts for the format's rules). */
  replay(line: Line): void {
    const [op] = line;
    if (op === 't') {
      const i = line[1];
      if (typeof i !== 'number') throw new Error('a transaction record without its index');
      if (i < this.store.size) return this.store.setLine(i, line, 13);
      if (i !== this.store.size) throw new Error(`transaction ${i} out of order (${this.store.size} read)`);
      this.store.addLine(line);
      this.seq = Math.max(this.seq, line[2] as number);
    } else if (op === 'u') {
      const i = line[1];
      if (!(typeof i === 'number' && i < this.store.size))
        throw new Error(`a change of transaction ${i}, which is not there`);
      this.store.setLine(i, line, 2);
    } else if (op === 'k') this.tokens.add(String(line[1]));
    else if (op === 'r') this.tokens.clear();
    else if (op === 'b') this.setBalance(String(line[1]), Number(line[2]));
    else throw new Error(`unknown record ${JSON.stringify(op)}`);
  }

  /** A whole-state file of version 1, read into the store (its transactions keep their random values). */
  restoreV1(file: string, data: Record<string, unknown>): void {
    try {
      const txs = data.transactions as StoredTransaction[];
      for (const t of data.tokens as string[]) this.tokens.add(t);
      for (const t of txs) {
        const { uuid, transaction_id, hash_token, ...rest } = t;
        this.store.add({ ...rest, given: { uuid, transaction_id, hash_token } });
      }
      this.seq = Number(data.seq);
      for (const [code, bal] of Object.entries(data.balances as Record<string, number>))
        this.setBalance(code, bal);
    } catch (err) {
      throw new DataFileError(
        file,
        'line 1 (byte 0)',
        `a version 1 file that cannot be read: ${(err as Error).message}`,
      );
    }
  }

  liveLines(): number {
    return this.store.size + this.tokens.size + this.balances.size;
  }

  /** The state as lines of the data file: what compaction and conversion write. */
  *stateLines(): Generator<string> {
    for (const t of this.tokens) yield JSON.stringify(['k', t]);
    for (const [code, bal] of this.balances) yield JSON.stringify(['b', code, bal]);
    const n = this.store.size;
    for (let i = 0; i < n; i++) yield JSON.stringify(this.txLine(i, this.store.get(i)));
  }

  private txLine(i: number, t: NewTransaction): Line {
    const given = this.store.givenOf(i);
    return [
      't',
      i,
      t.id,
      t.kind === 'withdraw' ? 1 : 0,
      t.reference,
      t.customer.first_name,
      nul(t.customer.last_name),
      t.customer.phone,
      t.customer.email,
      t.amount,
      t.currency_code,
      t.country_code,
      Date.parse(t.created_at),
      ...mutableLine(t),
      given ? [given.uuid, given.transaction_id, given.hash_token] : null,
    ];
  }
}
