// The sandbox's state and every rule of the spec's States table. Handlers in server.ts only parse bodies
// and hand over to these methods; every method is synchronous, so check-and-insert (the uniqueness of a
// customer_transaction_id under concurrent initiates) cannot interleave.
import { randomBytes } from 'node:crypto';
import { SeedView } from './seed-view.js';
import { checkInitiate } from './initiate-checks.js';
import { copyFileSync, constants } from 'node:fs';
import { DataFileError, DataLog, formatVersion, readLog, writeWholeSync, type Line } from './data-log.js';
import { TxStore, type Mutable, type NewTransaction, type StoredTransaction } from './tx-store.js';
import {
  emailPattern,
  messages,
  ok,
  okRaw,
  requiredMessage,
  round,
  shapeA,
  str,
  today,
  utcDateTime,
  validationFailure,
  walletAddress,
  type Reply,
} from './replies.js';
import type { StatusUpdateResult, WalletAddressUpdateResult } from '../api/schemas.js';
import { gatewayTypeOf, isTransactionStatus, type PaymentKind } from '../api/enums.js';
import { demoMerchant, demoSeed, gatewayConfiguration, type Seed } from './seed.js';

type Kind = PaymentKind;
export type { StoredTransaction };

type Body = Record<string, unknown>;
const isReply = (x: Found | Reply): x is Reply => !('tx' in x);
/** A transaction found by its hash_token: a copy, whose changes are saved with `save`. */
interface Found {
  i: number;
  tx: StoredTransaction;
}
export interface StateOptions {
  /** file to keep the state in across restarts: an append-only log (data-log.ts) */
  dataFile?: string;
  /** lines the data file may hold beyond twice the state's before it is compacted */
  compactSlack?: number;
  /** the data set served (default: demo) */
  seed?: Seed;
  log?: (line: string) => void;
  /** told of each API request as it is counted (tests compare when requests came with a client's pace) */
  onArrival?: (route: string, at: number) => void;
}

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

export class SandboxState {
  private seq = 0;
  private tokens = new Set<string>();
  private store: TxStore;
  private balances = new Map<string, number>();
  private readonly log: (line: string) => void;
  private data?: DataLog;

  private readonly seed: Seed;
  private readonly view: SeedView;
  /** Use SandboxState.create for a state kept in a data file. */
  constructor(private readonly opts: StateOptions = {}) {
    this.log = opts.log ?? (() => {});
    this.seed = opts.seed ?? demoSeed;
    this.view = new SeedView(this.seed);
    this.store = new TxStore();
    for (const c of this.seed.currencies) this.balances.set(c.currency.code, c.balance);
  }

  /** A state, read back from its data file when it has one (converted when of version 1). */
  static async create(opts: StateOptions = {}): Promise<SandboxState> {
    const state = new SandboxState(opts);
    if (opts.dataFile) await state.openData(opts.dataFile);
    return state;
  }

  private async openData(file: string): Promise<void> {
    const started = performance.now();
    const loaded = readLog(
      file,
      (line) => this.replay(line),
      (secret) => (this.store = new TxStore(Buffer.from(secret, 'hex'))),
    );
    let secret = loaded?.secret ?? this.store.secret.toString('hex');
    let lines = loaded?.lines ?? 0;
    if (loaded?.v1) {
      this.restoreV1(file, loaded.v1);
      secret = this.store.secret.toString('hex');
      const backup = `${file}.v1`;
      try {
        copyFileSync(file, backup, constants.COPYFILE_EXCL);
      } catch {
        // a backup of an earlier conversion is kept as it is
      }
      writeWholeSync(file, secret, this.stateLines());
      lines = 1 + this.liveLines();
      this.log(
        `converted ${file} from version 1 to format ${formatVersion} (${this.store.size} transactions; the old file kept as ${backup})`,
      );
    }
    if (loaded?.recovered) this.log(`recovered ${file}: ${loaded.recovered}`);
    if (loaded && !loaded.v1)
      this.log(
        `read ${file}: ${this.store.size} transactions, ${loaded.lines} lines, in ${((performance.now() - started) / 1000).toFixed(2)} s`,
      );
    this.data = await DataLog.open(file, secret, lines, {
      liveLines: () => this.liveLines(),
      stateLines: () => this.stateLines(),
      slack: this.opts.compactSlack ?? 100_000,
      log: this.log,
    });
  }

  /** Applies one line of the data file (see data-log.ts for the format's rules). */
  private replay(line: Line): void {
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
  private restoreV1(file: string, data: Record<string, unknown>): void {
    try {
      const txs = data.transactions as StoredTransaction[];
      this.tokens = new Set(data.tokens as string[]);
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

  private liveLines(): number {
    return this.store.size + this.tokens.size + this.balances.size;
  }

  /** The state as lines of the data file: what compaction and conversion write. */
  private *stateLines(): Generator<string> {
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

  /** Saves the changes made to a found transaction. */
  private save({ i, tx }: Found): void {
    this.store.set(i, tx);
    this.data?.append(['u', i, ...mutableLine(tx)]);
  }

  /** Waits for pending writes of --data, and closes the file: used on shutdown. */
  async flush(): Promise<void> {
    await this.data?.close();
  }

  /** Resolves once every change so far is written and synced (--data). */
  async synced(): Promise<void> {
    await this.data?.synced();
  }

  /** How long the longest group of changes took to be written and synced, in ms (--data). */
  longestWriteMs(): number | undefined {
    return this.data?.longestGroupMs;
  }

  // Auth ------------------------------------------------------------------------------------------------

  generateToken(body: Body): Reply {
    const key = str(body.merchant_key);
    if (!key) return validationFailure({ merchant_key: [requiredMessage('merchant_key')] });
    if (key !== demoMerchant.merchantKey)
      return validationFailure({ merchant_key: ['The selected merchant key is invalid.'] });
    const token = randomBytes(24).toString('hex');
    this.tokens.add(token);
    this.data?.append(['k', token]);
    return ok('Token generated successfully.', { token });
  }

  isAuthorized(header: string | undefined): boolean {
    const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    return !!m && this.tokens.has(m[1]!);
  }

  /** For tests of the client's refresh: every issued token stops working. */
  revokeTokens(): number {
    const n = this.tokens.size;
    this.tokens.clear();
    this.data?.append(['r']);
    return n;
  }

  // Reads -----------------------------------------------------------------------------------------------

  publicCurrencies(): Reply {
    return this.view.publicCurrencies();
  }

  publicCountries(): Reply {
    return this.view.publicCountries();
  }

  /** Cached until a balance changes: the list is the same for every request in between. */
  private merchantList?: Reply;

  merchantCurrencies(): Reply {
    this.merchantList ??= this.view.merchantCurrencies(this.balances);
    return this.merchantList;
  }

  private setBalance(code: string, value: number): void {
    this.balances.set(code, value);
    this.merchantList = undefined;
  }

  private changeBalance(code: string, value: number): void {
    this.setBalance(code, value);
    this.data?.append(['b', code, value]);
  }

  // Initiate --------------------------------------------------------------------------------------------

  initiate(kind: Kind, body: Body): Reply {
    const checked = checkInitiate(kind, body, this.seed, this.balances, this.store.references);
    if ('reply' in checked) return checked.reply;
    const { seed, amount, amountText, email, reference } = checked;
    const type = gatewayTypeOf(kind);
    const ids = kind === 'deposit' ? seed.collection : seed.disbursement;
    const now = new Date();
    const t: NewTransaction = {
      id: ++this.seq,
      kind,
      status: 'initiated',
      reference,
      amount,
      currency_code: seed.currency.code,
      country_code: seed.currency.country?.code ?? '',
      customer: {
        first_name: str(body.customer_first_name)!,
        last_name: str(body.customer_last_name),
        phone: str(body.customer_phone)!,
        email,
      },
      created_at: now.toISOString(),
    };
    const i = this.store.add(t);
    this.data?.append(this.txLine(i, t));
    const tx = { hash_token: this.store.hashToken(i) };
    // The seed parts of the answer are serialized once; the key order is that of InitiatedPayment.
    const key = seed.currency.code;
    const data =
      `{"currency":${this.view.once(`currency:${key}`, () => this.view.spell('currency', seed.currency))}` +
      `,"gateway_configuration":${this.view.once(`gateways:${key}:${type}`, () => ids.map((id) => gatewayConfiguration(this.seed, id, type)))}` +
      `,"merchant_service":${this.view.once('service', () => this.seed.service)}` +
      `,"has_token":${JSON.stringify(tx.hash_token)},"amount":${JSON.stringify(amountText)}` +
      `,"customer_email":${JSON.stringify(email)},"customer_transaction_id":${JSON.stringify(reference)}` +
      `,"country":${this.view.once(`country:${key}`, () => seed.currency.country)}}`;
    return okRaw(
      kind === 'deposit' ? 'Payment initiated successfully.' : 'Withdraw initiated successfully.',
      data,
    );
  }

  // Steps on an initiated transaction ------------------------------------------------------------------

  /** Finds the transaction of a hash_token, or the 422 reply for a missing or unknown one. */
  private find(body: Body, extra: Record<string, string[]> = {}): Found | Reply {
    const hash = str(body.hash_token);
    const errors = { ...extra };
    const i = hash ? this.store.indexOf(hash) : undefined;
    if (!hash) errors.hash_token = [requiredMessage('hash_token')];
    else if (i === undefined) errors.hash_token = ['The selected hash token is invalid.'];
    if (Object.keys(errors).length > 0) return validationFailure(errors);
    return { i: i!, tx: this.store.get(i!) };
  }

  private gatewayIds(tx: StoredTransaction): number[] {
    const seed = this.view.currencySeed(tx.currency_code);
    return tx.kind === 'deposit' ? seed.collection : seed.disbursement;
  }

  /** Checks gateway_id against the transaction's gateway configurations: the 422 errors, if any. */
  private gatewayErrors(tx: StoredTransaction, raw: unknown): Record<string, string[]> {
    const text = str(raw);
    if (text === undefined) return { gateway_id: [requiredMessage('gateway_id')] };
    if (!/^\d+$/.test(text)) return { gateway_id: ['The gateway id must be an integer.'] };
    if (!this.gatewayIds(tx).includes(Number(text)))
      return { gateway_id: ['The selected gateway id is invalid.'] };
    return {};
  }

  updateStatus(body: Body): Reply {
    const status = str(body.status);
    const statusErrors: Record<string, string[]> = {};
    if (!status) statusErrors.status = [requiredMessage('status')];
    else if (!isTransactionStatus(status)) statusErrors.status = ['The selected status is invalid.'];
    const found = this.find(body, statusErrors);
    if (isReply(found)) return found;
    const { tx } = found;
    if (tx.status !== 'initiated') return shapeA(404, messages.notInitiated);
    const gwErrors = this.gatewayErrors(tx, body.gateway_id);
    if (Object.keys(gwErrors).length > 0) return validationFailure(gwErrors);
    const gw = this.view.gateway(Number(str(body.gateway_id)));
    // The spec: for the gateways on its list the wallet address update "must be called before" the status
    // update. The sandbox holds clients to it (its reading of a rule whose error the spec does not show).
    if (gw.walletRequired && !tx.wallet_address)
      return validationFailure({ wallet_address: [messages.walletFirst] });
    tx.gateway_id = gw.id;
    tx.status = status!;
    this.save(found);
    const seed = this.view.currencySeed(tx.currency_code);
    const now = new Date();
    const data: StatusUpdateResult = {
      transaction_id: tx.transaction_id,
      customer_transaction_id: tx.reference,
      type: gatewayTypeOf(tx.kind),
      status: tx.status,
      amount: tx.amount,
      initiate_amount: tx.amount,
      usd_equivalence: round(tx.amount / (seed.currency.usd_exchange_rate ?? 1)),
      currency_code: tx.currency_code,
      fee_amount: this.view.fee(tx.amount, gw.minimumFees, gw.feePercent),
      payment_method: String(gw.record.payment_method ?? ''),
      transaction_date: today(now),
      transaction_time_utc: utcDateTime(now),
    };
    return ok('Payment status updated successfully.', data);
  }

  updateWallet(body: Body): Reply {
    const found = this.find(body);
    if (isReply(found)) return found;
    const { tx } = found;
    if (tx.status !== 'initiated') return shapeA(404, messages.notInitiated);
    const gwErrors = this.gatewayErrors(tx, body.gateway_id);
    if (Object.keys(gwErrors).length > 0) return validationFailure(gwErrors);
    const gw = this.view.gateway(Number(str(body.gateway_id)));
    tx.wallet_address = walletAddress(gw.network, gw.crypto);
    this.save(found);
    const country = this.seed.countries.find((c) => c.code === tx.country_code);
    const data: WalletAddressUpdateResult = {
      country_id: country?.id ?? null,
      gateway_id: gw.id,
      currency_code: tx.currency_code,
      wallet_address: tx.wallet_address,
      code: gw.coin ?? tx.currency_code,
      network: gw.network,
      status: 'active',
    };
    return ok('Wallet address updated successfully.', data);
  }

  depositProcessed(body: Body): Reply {
    return this.processed('deposit', body);
  }

  withdrawProcessed(body: Body): Reply {
    return this.processed('withdraw', body);
  }

  private processed(kind: Kind, body: Body): Reply {
    const extra: Record<string, string[]> = {};
    if (!str(body.phone_number)) extra.phone_number = [requiredMessage('phone_number')];
    if (kind === 'withdraw' && !str(body.customer_email))
      extra.customer_email = [requiredMessage('customer_email')];
    const receiver = str(body.receiver_email);
    if (receiver && !emailPattern.test(receiver))
      extra.receiver_email = ['The receiver email must be a valid email address.'];
    const found = this.find(body, extra);
    if (isReply(found)) return found;
    const { tx } = found;
    if (tx.kind !== kind) return validationFailure({ hash_token: ['The selected hash token is invalid.'] });
    if (kind === 'withdraw' && tx.paid)
      return validationFailure({ hash_token: ['This payment has already been done.'] });
    if (tx.status !== 'initiated') return shapeA(404, messages.notInitiated);
    const seed = this.seed.currencies.find((c) => c.currency.code === tx.currency_code);
    if (kind === 'withdraw') {
      if (!seed || !seed.limits.withdraw)
        return { status: 412, body: { success: false, message: messages.currencyMissing, data: [] } };
      const otp = str(body.otp);
      if (otp === undefined) {
        tx.otp_sent = true;
        this.save(found);
        this.log(`one-time code ${demoMerchant.otp} sent to ${str(body.customer_email)} for ${tx.reference}`);
        return ok(messages.otpSent, []);
      }
      if (!tx.otp_sent || otp !== demoMerchant.otp)
        return validationFailure({ otp: ['The otp is invalid.'] });
      if (tx.amount > (this.balances.get(tx.currency_code) ?? 0)) {
        return validationFailure({ amount: ['The merchant balance is insufficient for this amount.'] });
      }
      this.changeBalance(tx.currency_code, round((this.balances.get(tx.currency_code) ?? 0) - tx.amount));
      tx.paid = true;
    }
    tx.gateway_id ??= this.gatewayIds(tx)[0];
    tx.status = 'pending';
    tx.processed_at = new Date().toISOString();
    this.save(found);
    if (receiver) this.log(`confirmation sent to ${receiver} for ${tx.reference}`);
    return ok(
      kind === 'deposit' ? 'Payment processed successfully.' : 'Withdraw processed successfully.',
      this.view.transaction(tx),
    );
  }

  private readonly requests = new Map<string, number>();

  /** Counts a request by method and path: tests check that a money-moving POST was sent once. */
  count(route: string): void {
    this.requests.set(route, (this.requests.get(route) ?? 0) + 1);
    this.opts.onArrival?.(route, Date.now());
  }

  requestCounts(): Record<string, number> {
    return Object.fromEntries(this.requests);
  }

  /** How many transactions the sandbox holds. */
  size(): number {
    return this.store.size;
  }

  /** What the sandbox holds, for tests and the `_sandbox` inspection route. */
  list(): StoredTransaction[] {
    return Array.from({ length: this.store.size }, (_, i) => this.store.get(i));
  }

  balance(code: string): number | undefined {
    return this.balances.get(code);
  }
}
