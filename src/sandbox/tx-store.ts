// The sandbox's transactions, held compactly: numbers in typed-array columns, the strings of each
// transaction (reference, customer, e-mail) as UTF-8 in 16 MB slabs outside V8's heap, and the values a
// client is handed that are only random (uuid, transaction_id, hash_token) derived from the transaction's
// index with an HMAC under a secret of the sandbox's, instead of stored. A hash_token carries its index, so
// finding a transaction takes no map of a million strings. What a million transactions cost is in
// docs/performance.md ("The sandbox as a long-running server").
import { createHmac, randomBytes } from 'node:crypto';
import { transactionStatuses } from '../api/enums.js';
import type { PaymentKind } from '../api/enums.js';
import { RefIndex, refHash } from './ref-index.js';
import type { LaterSections } from './snapshot.js';

export interface StoredTransaction {
  id: number;
  uuid: string;
  transaction_id: string;
  hash_token: string;
  kind: PaymentKind;
  status: string;
  reference: string;
  amount: number;
  currency_code: string;
  country_code: string;
  customer: { first_name: string; last_name?: string; phone: string; email: string };
  gateway_id?: number;
  wallet_address?: string;
  otp_sent?: boolean;
  paid?: boolean;
  created_at: string;
  processed_at?: string;
}

/** What a transaction is made from at initiate (its derived values come from its index). */
export type NewTransaction = Omit<StoredTransaction, 'uuid' | 'transaction_id' | 'hash_token'> & {
  /** a transaction from a version 1 data file keeps the random values it was handed out with */
  given?: { uuid: string; transaction_id: string; hash_token: string };
};

/** The part of a transaction that changes after initiate. */
export type Mutable = Pick<
  StoredTransaction,
  'status' | 'gateway_id' | 'wallet_address' | 'otp_sent' | 'paid' | 'processed_at'
>;

const SLAB = 16 * 2 ** 20;
const SEP = '\u0000';
const WITHDRAW = 1;
const OTP = 2;
const PAID = 4;
const LAST = 8;
// A status the API does not know (status update refuses them; kept for data files written otherwise).
const OTHER = 255;

/** The typed columns, widest first (a snapshot writes them in this order, each 8-byte aligned). */
const columnTypes = {
  ids: Float64Array,
  created: Float64Array,
  processed: Float64Array,
  amounts: Float64Array,
  gateways: Int32Array,
  slabOf: Uint32Array,
  offsets: Uint32Array,
  lengths: Uint32Array,
  /** the hash of the reference (ref-index.ts) */
  hashes: Uint32Array,
  places: Uint16Array,
  flags: Uint8Array,
  statuses: Uint8Array,
};
type Columns = { [K in keyof typeof columnTypes]: InstanceType<(typeof columnTypes)[K]> };
type ColumnName = keyof Columns;
const columnNames = Object.keys(columnTypes) as ColumnName[];
/** The columns that change after initiate (a snapshot copies them; the others only grow). */
const changing = new Set<ColumnName>(['processed', 'gateways', 'flags', 'statuses']);

const columnsOf = (cap: number, old?: Columns): Columns =>
  Object.fromEntries(
    columnNames.map((k) => {
      const a = new columnTypes[k](cap);
      if (old) a.set(old[k]);
      return [k, a];
    }),
  ) as unknown as Columns;

const bytesOf = (a: ArrayBufferView, length = a.byteLength) => new Uint8Array(a.buffer, a.byteOffset, length);

/** What a snapshot holds of the store besides its columns and slabs (written as JSON). */
export interface StoreMeta {
  n: number;
  slabUsed: number[];
  placeNames: string[];
  wallets: [number, string][];
  otherStatus: [number, string][];
  given: [number, NonNullable<NewTransaction['given']>][];
  refTable: number;
}

export class TxStore {
  private n = 0;
  private cap = 0;
  private c: Columns = columnsOf(0);
  /** undefined: a slab of a snapshot not read yet */
  private readonly slabs: (Buffer | undefined)[] = [];
  /** bytes written in each slab */
  private readonly slabUsed: number[] = [];
  /**
   * The sections of the snapshot a start left to read later (every column but the references' hashes,
   * and the slabs), by section: a column's name, or a slab's number. Until a column is read, the store
   * holds an empty one of its size, into which only transactions from `fromSnapshot` on are written.
   */
  private later?: LaterSections;
  private readonly lazy = new Map<number, ColumnName | number>();
  private readonly lazyColumns = new Map<ColumnName, number>();
  private fromSnapshot = 0;
  /** told when a section read after the start is damaged (the caller then reads the log again) */
  onDamage?: (err: Error) => void;
  private readonly placeNames: string[] = [];
  private readonly placeIndex = new Map<string, number>();
  private readonly wallets = new Map<number, string>();
  private readonly otherStatus = new Map<number, string>();
  private readonly given = new Map<number, NonNullable<NewTransaction['given']>>();
  private readonly givenByHash = new Map<string, number>();
  private refs = new RefIndex(
    () => this.c.hashes,
    (i) => this.reference(i),
  );
  /** The references held, for the uniqueness check of initiate. */
  readonly references = { has: (ref: string) => this.refs.has(ref) };

  constructor(readonly secret: Buffer = randomBytes(32)) {}

  get size(): number {
    return this.n;
  }

  private grow(): void {
    this.need(...columnNames);
    this.cap = Math.max(1024, this.cap * 2);
    this.c = columnsOf(this.cap, this.c);
  }

  private place(currency: string, country: string): number {
    const key = `${currency}${SEP}${country}`;
    let i = this.placeIndex.get(key);
    if (i === undefined) {
      i = this.placeNames.push(key) - 1;
      this.placeIndex.set(key, i);
    }
    return i;
  }

  /** Slab `k`, read now if a start left it for later. */
  private slab(k: number): Buffer {
    const slab = this.slabs[k];
    if (slab) return slab;
    for (const [section, what] of this.lazy) if (what === k) this.readNow(section);
    return this.slabs[k]!;
  }

  /** The columns named, read now where a start left them for later. */
  private need(...names: ColumnName[]): void {
    if (!this.later) return;
    for (const name of names) {
      const section = this.lazyColumns.get(name);
      if (section !== undefined) this.readNow(section);
    }
  }

  /** New memory for section `s` of the snapshot: the bytes to read it into. */
  private targetOf(s: number): Uint8Array {
    const what = this.lazy.get(s)!;
    if (typeof what === 'number') return Buffer.allocUnsafeSlow(this.slabUsed[what]!);
    const column = new columnTypes[what](this.cap);
    return bytesOf(column, this.fromSnapshot * column.BYTES_PER_ELEMENT);
  }

  /** Section `s`, read into `target`, takes its place (a column keeps what was added since the start). */
  private install(s: number, target: Uint8Array): void {
    const what = this.lazy.get(s)!;
    this.lazy.delete(s);
    if (this.lazy.size === 0) this.later = undefined;
    if (typeof what === 'number') {
      this.slabs[what] = target as Buffer;
      return;
    }
    this.lazyColumns.delete(what);
    type Column = Columns[ColumnName];
    const column = new (columnTypes[what] as unknown as new (b: ArrayBufferLike) => Column)(target.buffer);
    column.set(this.c[what].subarray(this.fromSnapshot, this.n) as never, this.fromSnapshot);
    (this.c as Record<ColumnName, Column>)[what] = column;
  }

  private readNow(s: number): void {
    const target = this.targetOf(s);
    try {
      this.later!.read(s, target);
    } catch (err) {
      this.onDamage?.(err as Error);
      throw err;
    }
    this.install(s, target);
  }

  /**
   * Reads what a start left for later, a section after the other, off the event loop (a section needed
   * before its turn is read at once instead). Resolves when all are in, or one was damaged (onDamage).
   */
  async readLater(): Promise<void> {
    const later = this.later;
    if (!later) return;
    try {
      for (const s of [...this.lazy.keys()]) {
        if (!this.lazy.has(s)) continue;
        if (!later.pending.includes(s)) return; // closed
        const target = this.targetOf(s);
        if ((await later.readSoon(s, target)) && this.lazy.has(s)) this.install(s, target);
      }
    } catch (err) {
      later.close();
      this.onDamage?.(err as Error);
    }
  }

  private putText(i: number, text: string): void {
    const bytes = Buffer.byteLength(text);
    let slab = this.slabs.length - 1;
    // (a slab read from a snapshot is full: text goes on in a new one)
    if (slab < 0 || !this.slabs[slab] || this.slabUsed[slab]! + bytes > this.slabs[slab]!.length) {
      slab = this.slabs.push(Buffer.allocUnsafeSlow(Math.max(SLAB, bytes))) - 1;
      this.slabUsed.push(0);
    }
    const at = this.slabUsed[slab]!;
    this.slabs[slab]!.write(text, at, 'utf8');
    this.c.slabOf[i] = slab;
    this.c.offsets[i] = at;
    this.c.lengths[i] = bytes;
    this.slabUsed[slab] = at + bytes;
  }

  private text(i: number): string[] {
    if (i < this.fromSnapshot) this.need('slabOf', 'offsets', 'lengths');
    const at = this.c.offsets[i]!;
    return this.slab(this.c.slabOf[i]!)
      .toString('utf8', at, at + this.c.lengths[i]!)
      .split(SEP);
  }

  /** The reference of transaction `i` (the first of its strings). */
  private reference(i: number): string {
    if (i < this.fromSnapshot) this.need('slabOf', 'offsets');
    const slab = this.slab(this.c.slabOf[i]!);
    const at = this.c.offsets[i]!;
    return slab.toString('utf8', at, slab.indexOf(0, at));
  }

  /** The columns and strings of a new transaction, and its reference in the index: its index. */
  private addFixed(
    fixed: { id: number; created: number; amount: number; place: number; withdraw: boolean },
    strings: [string, string, string | undefined, string, string],
  ): number {
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    const [ref, first, last, phone, email] = strings;
    this.c.ids[i] = fixed.id;
    this.c.created[i] = fixed.created;
    this.c.amounts[i] = fixed.amount;
    this.c.places[i] = fixed.place;
    this.putText(i, `${ref}${SEP}${first}${SEP}${last ?? ''}${SEP}${phone}${SEP}${email}`);
    this.c.flags[i] = (fixed.withdraw ? WITHDRAW : 0) | (last !== undefined ? LAST : 0);
    this.c.hashes[i] = refHash(ref);
    this.refs.add(i);
    return i;
  }

  private keepGiven(i: number, given: NonNullable<NewTransaction['given']>): void {
    this.given.set(i, given);
    this.givenByHash.set(given.hash_token, i);
  }

  /** Stores a new transaction; its index. */
  add(t: NewTransaction): number {
    const c = t.customer;
    const i = this.addFixed(
      {
        id: t.id,
        created: Date.parse(t.created_at),
        amount: t.amount,
        place: this.place(t.currency_code, t.country_code),
        withdraw: t.kind === 'withdraw',
      },
      [t.reference, c.first_name, c.last_name, c.phone, c.email],
    );
    this.set(i, t);
    if (t.given) this.keepGiven(i, t.given);
    return i;
  }

  /**
   * Stores a transaction line of the data file (["t", index, id, kind, reference, first name, last name,
   * phone, email, amount, currency, country, created ms, …changing part, given]) without making objects:
   * the read of a large file.
   */
  addLine(l: unknown[]): number {
    const [, , id, kind, ref, first, last, phone, email, amount, currency, country, created] = l;
    if (
      typeof id !== 'number' ||
      typeof ref !== 'string' ||
      typeof first !== 'string' ||
      (last !== null && typeof last !== 'string') ||
      typeof phone !== 'string' ||
      typeof email !== 'string' ||
      typeof amount !== 'number' ||
      typeof currency !== 'string' ||
      typeof country !== 'string' ||
      typeof created !== 'number'
    )
      throw new Error('a transaction record of the wrong shape');
    const i = this.addFixed({ id, created, amount, place: this.place(currency, country), withdraw: !!kind }, [
      ref,
      first,
      last ?? undefined,
      phone,
      email,
    ]);
    this.setLine(i, l, 13);
    const given = l[19];
    if (Array.isArray(given)) {
      const [uuid, transaction_id, hash_token] = given.map(String) as [string, string, string];
      this.keepGiven(i, { uuid, transaction_id, hash_token });
    }
    return i;
  }

  /** Writes the changing part of transaction `i` from a line of the data file, from `at` on. */
  setLine(i: number, l: unknown[], at: number): void {
    if (i < this.fromSnapshot) this.need(...changing);
    const status = l[at];
    if (typeof status !== 'string') throw new Error('a transaction record without a status');
    const s = (transactionStatuses as readonly string[]).indexOf(status);
    this.c.statuses[i] = s < 0 ? OTHER : s;
    if (s < 0) this.otherStatus.set(i, status);
    else this.otherStatus.delete(i);
    const gw = l[at + 1];
    this.c.gateways[i] = typeof gw === 'number' ? gw : -1;
    const wallet = l[at + 2];
    if (typeof wallet === 'string') this.wallets.set(i, wallet);
    else this.wallets.delete(i);
    this.c.flags[i] =
      (this.c.flags[i]! & (WITHDRAW | LAST)) | (l[at + 3] === 1 ? OTP : 0) | (l[at + 4] === 1 ? PAID : 0);
    const processed = l[at + 5];
    this.c.processed[i] = typeof processed === 'number' ? processed : 0;
  }

  /** Writes the changing part of transaction `i`. */
  set(i: number, m: Mutable): void {
    if (i < this.fromSnapshot) this.need(...changing);
    const s = (transactionStatuses as readonly string[]).indexOf(m.status);
    this.c.statuses[i] = s < 0 ? OTHER : s;
    if (s < 0) this.otherStatus.set(i, m.status);
    else this.otherStatus.delete(i);
    this.c.gateways[i] = m.gateway_id ?? -1;
    if (m.wallet_address !== undefined) this.wallets.set(i, m.wallet_address);
    else this.wallets.delete(i);
    this.c.flags[i] = (this.c.flags[i]! & (WITHDRAW | LAST)) | (m.otp_sent ? OTP : 0) | (m.paid ? PAID : 0);
    this.c.processed[i] = m.processed_at ? Date.parse(m.processed_at) : 0;
  }

  private mac(label: string, i: number): string {
    return createHmac('sha256', this.secret).update(`${label}${i}`).digest('hex');
  }

  hashToken(i: number): string {
    return (
      this.given.get(i)?.hash_token ?? `${i.toString(16).padStart(12, '0')}${this.mac('h', i).slice(0, 52)}`
    );
  }

  /** The index of a hash_token's transaction, if it is one of ours. */
  indexOf(hash: string): number | undefined {
    const legacy = this.givenByHash.get(hash);
    if (legacy !== undefined) return legacy;
    if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
    const i = parseInt(hash.slice(0, 12), 16);
    return i < this.n && !this.given.has(i) && this.hashToken(i) === hash ? i : undefined;
  }

  /** Transaction `i` as an object (a copy: changes go back through set). */
  get(i: number): StoredTransaction {
    if (i < this.fromSnapshot) this.need(...columnNames);
    const [reference, first_name, last, phone, email] = this.text(i) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const [currency_code, country_code] = this.placeNames[this.c.places[i]!]!.split(SEP) as [string, string];
    const flags = this.c.flags[i]!;
    const given = this.given.get(i);
    const created = this.c.created[i]!;
    let uuid = given?.uuid;
    if (!uuid) {
      const h = this.mac('u', i);
      uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) & 3]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    }
    const tx: StoredTransaction = {
      id: this.c.ids[i]!,
      uuid,
      transaction_id:
        given?.transaction_id ??
        `TXN${created.toString(36).toUpperCase()}${this.mac('t', i).slice(0, 6).toUpperCase()}`,
      hash_token: this.hashToken(i),
      kind: flags & WITHDRAW ? 'withdraw' : 'deposit',
      status:
        this.c.statuses[i] === OTHER ? this.otherStatus.get(i)! : transactionStatuses[this.c.statuses[i]!]!,
      reference,
      amount: this.c.amounts[i]!,
      currency_code,
      country_code,
      customer: { first_name, ...(flags & LAST ? { last_name: last } : {}), phone, email },
      created_at: new Date(created).toISOString(),
    };
    if (this.c.gateways[i] !== -1) tx.gateway_id = this.c.gateways[i];
    const wallet = this.wallets.get(i);
    if (wallet !== undefined) tx.wallet_address = wallet;
    if (flags & OTP) tx.otp_sent = true;
    if (flags & PAID) tx.paid = true;
    if (this.c.processed[i]) tx.processed_at = new Date(this.c.processed[i]!).toISOString();
    return tx;
  }

  /** Whether transaction `i` kept random values of its own (from a version 1 data file). */
  givenOf(i: number): NewTransaction['given'] {
    return this.given.get(i);
  }

  /**
   * The store as a snapshot holds it, taken now: its small parts, and its columns, index and slabs as byte
   * views. The columns that change, and the index, are copied; the other columns and the slabs' written
   * bytes only grow, so views of them stay true while the snapshot is written.
   */
  capture(): { meta: StoreMeta; sections: Uint8Array[] } {
    this.need(...columnNames);
    const n = this.n;
    const sections = columnNames.map((k) => {
      const col = this.c[k].subarray(0, n);
      return bytesOf(changing.has(k) ? col.slice() : col);
    });
    sections.push(bytesOf(this.refs.table.slice()));
    this.slabs.forEach((_, k) => sections.push(bytesOf(this.slab(k), this.slabUsed[k])));
    const meta: StoreMeta = {
      n,
      slabUsed: [...this.slabUsed],
      placeNames: [...this.placeNames],
      wallets: [...this.wallets],
      otherStatus: [...this.otherStatus],
      given: [...this.given],
      refTable: this.refs.table.length,
    };
    return { meta, sections };
  }

  /**
   * A store to be filled from a snapshot, and the byte views its sections are read into, in order: null
   * for those read later (`readLater`, or when first needed): all but the hashes of the references, which
   * the index needs to refuse a reference taken.
   */
  static restore(secret: Buffer, meta: StoreMeta): { store: TxStore; targets: (Uint8Array | null)[] } {
    const { n, refTable } = meta;
    if (!(Number.isSafeInteger(n) && n >= 0 && refTable >= 2 * n && Number.isInteger(Math.log2(refTable))))
      throw new Error('its store description is not one this mpay writes');
    const store = new TxStore(secret);
    store.n = n;
    store.cap = Math.max(1024, 2 ** Math.ceil(Math.log2(n + 1)));
    store.c = columnsOf(store.cap);
    store.fromSnapshot = n;
    const targets: (Uint8Array | null)[] = columnNames.map((k, section) => {
      if (k === 'hashes') return bytesOf(store.c[k], n * store.c[k].BYTES_PER_ELEMENT);
      store.lazy.set(section, k);
      store.lazyColumns.set(k, section);
      return null;
    });
    const table = new Int32Array(refTable);
    store.refs = new RefIndex(
      () => store.c.hashes,
      (i) => store.reference(i),
      table,
      n,
    );
    targets.push(bytesOf(table));
    for (const used of meta.slabUsed) {
      store.lazy.set(targets.length, store.slabs.length);
      store.slabs.push(undefined);
      store.slabUsed.push(used);
      targets.push(null);
    }
    for (const name of meta.placeNames) store.place(...(name.split(SEP) as [string, string]));
    for (const [i, w] of meta.wallets) store.wallets.set(i, w);
    for (const [i, st] of meta.otherStatus) store.otherStatus.set(i, st);
    for (const [i, g] of meta.given) store.keepGiven(i, g);
    return { store, targets };
  }

  /** The snapshot's sections left for later (restore's nulls), from where they are read. */
  readFrom(later: LaterSections): void {
    if (this.lazy.size) this.later = later;
  }
}
