// The sandbox's transactions, held compactly: numbers in typed-array columns, the strings of each
// transaction (reference, customer, e-mail) as UTF-8 in 16 MB slabs outside V8's heap, and the values a
// client is handed that are only random (uuid, transaction_id, hash_token) derived from the transaction's
// index with an HMAC under a secret of the sandbox's, instead of stored. A hash_token carries its index, so
// finding a transaction takes no map of a million strings. What a million transactions cost is in
// docs/performance.md ("The sandbox as a long-running server").
import { createHmac, randomBytes } from 'node:crypto';
import { transactionStatuses } from '../api/enums.js';
import type { PaymentKind } from '../api/enums.js';

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

export class TxStore {
  private n = 0;
  private cap = 0;
  private ids = new Float64Array(0);
  private created = new Float64Array(0);
  private processed = new Float64Array(0);
  private amounts = new Float64Array(0);
  private gateways = new Int32Array(0);
  private flags = new Uint8Array(0);
  private statuses = new Uint8Array(0);
  private places = new Uint16Array(0);
  private slabOf = new Uint32Array(0);
  private offsets = new Uint32Array(0);
  private lengths = new Uint32Array(0);
  private readonly slabs: Buffer[] = [];
  private used = SLAB;
  private readonly placeNames: string[] = [];
  private readonly placeIndex = new Map<string, number>();
  private readonly wallets = new Map<number, string>();
  private readonly otherStatus = new Map<number, string>();
  private readonly given = new Map<number, NonNullable<NewTransaction['given']>>();
  private readonly givenByHash = new Map<string, number>();
  readonly references = new Set<string>();

  constructor(readonly secret: Buffer = randomBytes(32)) {}

  get size(): number {
    return this.n;
  }

  private grow(): void {
    const cap = Math.max(1024, this.cap * 2);
    const grown = <T extends Float64Array | Int32Array | Uint8Array | Uint16Array | Uint32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      b.set(a);
      return b;
    };
    this.ids = grown(this.ids);
    this.created = grown(this.created);
    this.processed = grown(this.processed);
    this.amounts = grown(this.amounts);
    this.gateways = grown(this.gateways);
    this.flags = grown(this.flags);
    this.statuses = grown(this.statuses);
    this.places = grown(this.places);
    this.slabOf = grown(this.slabOf);
    this.offsets = grown(this.offsets);
    this.lengths = grown(this.lengths);
    this.cap = cap;
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

  private putText(i: number, text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.used + bytes > SLAB) {
      this.slabs.push(Buffer.allocUnsafeSlow(Math.max(SLAB, bytes)));
      this.used = 0;
    }
    const slab = this.slabs.length - 1;
    this.slabs[slab]!.write(text, this.used, 'utf8');
    this.slabOf[i] = slab;
    this.offsets[i] = this.used;
    this.lengths[i] = bytes;
    this.used += bytes;
  }

  private text(i: number): string[] {
    return this.slabs[this.slabOf[i]!]!.toString(
      'utf8',
      this.offsets[i],
      this.offsets[i]! + this.lengths[i]!,
    ).split(SEP);
  }

  /** Stores a new transaction; its index. */
  add(t: NewTransaction): number {
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    this.ids[i] = t.id;
    this.created[i] = Date.parse(t.created_at);
    this.amounts[i] = t.amount;
    this.places[i] = this.place(t.currency_code, t.country_code);
    const c = t.customer;
    this.putText(i, [t.reference, c.first_name, c.last_name ?? '', c.phone, c.email].join(SEP));
    this.flags[i] = (t.kind === 'withdraw' ? WITHDRAW : 0) | (c.last_name !== undefined ? LAST : 0);
    this.set(i, t);
    this.references.add(t.reference);
    if (t.given) {
      this.given.set(i, t.given);
      this.givenByHash.set(t.given.hash_token, i);
    }
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
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    this.ids[i] = id;
    this.created[i] = created;
    this.amounts[i] = amount;
    this.places[i] = this.place(currency, country);
    this.putText(i, `${ref}${SEP}${first}${SEP}${last ?? ''}${SEP}${phone}${SEP}${email}`);
    this.flags[i] = (kind ? WITHDRAW : 0) | (last !== null ? LAST : 0);
    this.setLine(i, l, 13);
    this.references.add(ref);
    const given = l[19];
    if (Array.isArray(given)) {
      const [uuid, transaction_id, hash_token] = given.map(String) as [string, string, string];
      this.given.set(i, { uuid, transaction_id, hash_token });
      this.givenByHash.set(hash_token, i);
    }
    return i;
  }

  /** Writes the changing part of transaction `i` from a line of the data file, from `at` on. */
  setLine(i: number, l: unknown[], at: number): void {
    const status = l[at];
    if (typeof status !== 'string') throw new Error('a transaction record without a status');
    const s = (transactionStatuses as readonly string[]).indexOf(status);
    this.statuses[i] = s < 0 ? OTHER : s;
    if (s < 0) this.otherStatus.set(i, status);
    else this.otherStatus.delete(i);
    const gw = l[at + 1];
    this.gateways[i] = typeof gw === 'number' ? gw : -1;
    const wallet = l[at + 2];
    if (typeof wallet === 'string') this.wallets.set(i, wallet);
    else this.wallets.delete(i);
    this.flags[i] =
      (this.flags[i]! & (WITHDRAW | LAST)) | (l[at + 3] === 1 ? OTP : 0) | (l[at + 4] === 1 ? PAID : 0);
    const processed = l[at + 5];
    this.processed[i] = typeof processed === 'number' ? processed : 0;
  }

  /** Writes the changing part of transaction `i`. */
  set(i: number, m: Mutable): void {
    const s = (transactionStatuses as readonly string[]).indexOf(m.status);
    this.statuses[i] = s < 0 ? OTHER : s;
    if (s < 0) this.otherStatus.set(i, m.status);
    else this.otherStatus.delete(i);
    this.gateways[i] = m.gateway_id ?? -1;
    if (m.wallet_address !== undefined) this.wallets.set(i, m.wallet_address);
    else this.wallets.delete(i);
    this.flags[i] = (this.flags[i]! & (WITHDRAW | LAST)) | (m.otp_sent ? OTP : 0) | (m.paid ? PAID : 0);
    this.processed[i] = m.processed_at ? Date.parse(m.processed_at) : 0;
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
    const [reference, first_name, last, phone, email] = this.text(i) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const [currency_code, country_code] = this.placeNames[this.places[i]!]!.split(SEP) as [string, string];
    const flags = this.flags[i]!;
    const given = this.given.get(i);
    const created = this.created[i]!;
    let uuid = given?.uuid;
    if (!uuid) {
      const h = this.mac('u', i);
      uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) & 3]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    }
    const tx: StoredTransaction = {
      id: this.ids[i]!,
      uuid,
      transaction_id:
        given?.transaction_id ??
        `TXN${created.toString(36).toUpperCase()}${this.mac('t', i).slice(0, 6).toUpperCase()}`,
      hash_token: this.hashToken(i),
      kind: flags & WITHDRAW ? 'withdraw' : 'deposit',
      status: this.statuses[i] === OTHER ? this.otherStatus.get(i)! : transactionStatuses[this.statuses[i]!]!,
      reference,
      amount: this.amounts[i]!,
      currency_code,
      country_code,
      customer: { first_name, ...(flags & LAST ? { last_name: last } : {}), phone, email },
      created_at: new Date(created).toISOString(),
    };
    if (this.gateways[i] !== -1) tx.gateway_id = this.gateways[i];
    const wallet = this.wallets.get(i);
    if (wallet !== undefined) tx.wallet_address = wallet;
    if (flags & OTP) tx.otp_sent = true;
    if (flags & PAID) tx.paid = true;
    if (this.processed[i]) tx.processed_at = new Date(this.processed[i]!).toISOString();
    return tx;
  }

  /** Whether transaction `i` kept random values of its own (from a version 1 data file). */
  givenOf(i: number): NewTransaction['given'] {
    return this.given.get(i);
  }
}
