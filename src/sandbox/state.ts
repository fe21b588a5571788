// The sandbox's state and every rule of the spec's States table. Handlers in server.ts only parse bodies
// and hand over to these methods; every method is synchronous, so check-and-insert (the uniqueness of a
// customer_transaction_id under concurrent initiates) cannot interleave.
import { randomBytes } from 'node:crypto';
import { SeedView } from './seed-view.js';
import { checkInitiate } from './initiate-checks.js';
import { Holdings } from './holdings.js';
import { lockData } from './data-lock.js';
import { openData, type DataStart } from './state-file.js';
import type { SnapshotSchedule, Snapshots } from './state-snapshot.js';
import type { NewTransaction, StoredTransaction } from './tx-store.js';
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
  /** file to keep the state in across restarts: an append-only log (data-log.ts), and its snapshot */
  dataFile?: string;
  /** lines the data file may hold beyond twice the state's before it is compacted */
  compactSlack?: number;
  /** when snapshots of the state are written beside the data file (state-snapshot.ts) */
  snapshot?: SnapshotSchedule;
  /** the data set served (default: demo) */
  seed?: Seed;
  log?: (line: string) => void;
  /** told of each API request as it is counted (tests compare when requests came with a client's pace) */
  onArrival?: (route: string, at: number) => void;
}

export class SandboxState {
  private readonly h: Holdings;
  private readonly log: (line: string) => void;
  private snapshots?: Snapshots;

  private readonly seed: Seed;
  private readonly view: SeedView;
  /** Use SandboxState.create for a state kept in a data file. */
  constructor(private readonly opts: StateOptions = {}) {
    this.log = opts.log ?? (() => {});
    this.seed = opts.seed ?? demoSeed;
    this.view = new SeedView(this.seed);
    this.h = new Holdings(this.seed);
  }

  /** A state, read back from its data file when it has one (converted when of version 1). */
  static async create(opts: StateOptions = {}): Promise<SandboxState> {
    const state = new SandboxState(opts);
    if (opts.dataFile) {
      // one sandbox at a time on a data file: a second refuses before it reads or writes anything
      state.unlock = lockData(opts.dataFile);
      try {
        ({ snapshots: state.snapshots, started: state.dataStart } = await openData(state.h, opts.dataFile, {
          compactSlack: opts.compactSlack,
          snapshot: opts.snapshot,
          log: state.log,
        }));
      } catch (err) {
        state.unlock();
        throw err;
      }
    }
    return state;
  }

  /** How the data file was found at the start (none without --data): new and empty, or holding some. */
  dataStart?: DataStart;

  /** Releases the data file's lock (data-lock.ts): at the end of flush, or when the start failed. */
  unlock: () => void = () => {};

  /** Releases the data file's lock without writing anything: a start that failed after reading it. */
  abandon(): void {
    this.unlock();
  }

  /** Saves the changes made to a found transaction. */
  private save({ i, tx }: Found): void {
    this.h.save(i, tx);
  }

  /** Waits for pending writes of --data, closes the file, and writes the snapshot: used on shutdown. */
  async flush(): Promise<void> {
    try {
      await this.h.data?.close();
      await this.snapshots?.close();
    } finally {
      this.unlock();
    }
  }

  /** Resolves once every change so far is written and synced (--data). */
  async synced(): Promise<void> {
    await this.h.data?.synced();
  }

  /**
   * Writes a snapshot now (--data); `pauseAfterBytes` (a test's): the write waits after that many bytes,
   * said in the log, until the sandbox stops.
   */
  async snapshot(pauseAfterBytes?: number): Promise<boolean> {
    if (!this.snapshots) return false;
    await this.snapshots.request(pauseAfterBytes, () =>
      this.log(`snapshot paused after ${pauseAfterBytes} bytes, as asked`),
    );
    return true;
  }

  /** How long the longest group of changes took to be written and synced, in ms (--data). */
  longestWriteMs(): number | undefined {
    return this.h.data?.longestGroupMs;
  }

  // Auth ------------------------------------------------------------------------------------------------

  generateToken(body: Body): Reply {
    const key = str(body.merchant_key);
    if (!key) return validationFailure({ merchant_key: [requiredMessage('merchant_key')] });
    if (key !== demoMerchant.merchantKey)
      return validationFailure({ merchant_key: ['The selected merchant key is invalid.'] });
    const token = randomBytes(24).toString('hex');
    this.h.addToken(token);
    return ok('Token generated successfully.', { token });
  }

  isAuthorized(header: string | undefined): boolean {
    const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    return !!m && this.h.tokens.has(m[1]!);
  }

  /** For tests of the client's refresh: every issued token stops working. */
  revokeTokens(): number {
    return this.h.revokeTokens();
  }

  // Reads -----------------------------------------------------------------------------------------------

  publicCurrencies(): Reply {
    return this.view.publicCurrencies();
  }

  publicCountries(): Reply {
    return this.view.publicCountries();
  }

  /** Cached until a balance changes: the list is the same for every request in between. */
  private merchantList?: { reply: Reply; changes: number };

  merchantCurrencies(): Reply {
    if (this.merchantList?.changes !== this.h.balanceChanges)
      this.merchantList = {
        reply: this.view.merchantCurrencies(this.h.balances),
        changes: this.h.balanceChanges,
      };
    return this.merchantList.reply;
  }

  // Initiate --------------------------------------------------------------------------------------------

  initiate(kind: Kind, body: Body): Reply {
    const checked = checkInitiate(kind, body, this.seed, this.h.balances, this.h.store.references);
    if ('reply' in checked) return checked.reply;
    const { seed, amount, amountText, email, reference } = checked;
    const type = gatewayTypeOf(kind);
    const ids = kind === 'deposit' ? seed.collection : seed.disbursement;
    const now = new Date();
    const t: NewTransaction = {
      id: ++this.h.seq,
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
    const i = this.h.addTransaction(t);
    const tx = { hash_token: this.h.store.hashToken(i) };
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
    const i = hash ? this.h.store.indexOf(hash) : undefined;
    if (!hash) errors.hash_token = [requiredMessage('hash_token')];
    else if (i === undefined) errors.hash_token = ['The selected hash token is invalid.'];
    if (Object.keys(errors).length > 0) return validationFailure(errors);
    return { i: i!, tx: this.h.store.get(i!) };
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
      const balance = this.h.balances.get(tx.currency_code) ?? 0;
      if (tx.amount > balance)
        return validationFailure({ amount: ['The merchant balance is insufficient for this amount.'] });
      this.h.changeBalance(tx.currency_code, round(balance - tx.amount));
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
    return this.h.store.size;
  }

  /** What the sandbox holds, for tests and the `_sandbox` inspection route. */
  list(): StoredTransaction[] {
    return Array.from({ length: this.h.store.size }, (_, i) => this.h.store.get(i));
  }

  balance(code: string): number | undefined {
    return this.h.balances.get(code);
  }
}
