// The sandbox's state and every rule of the spec's States table. Handlers in server.ts only parse bodies
// and hand over to these methods; every method is synchronous, so check-and-insert (the uniqueness of a
// customer_transaction_id under concurrent initiates) cannot interleave.
import { randomBytes, randomUUID } from 'node:crypto';
import { SeedView } from './seed-view.js';
import { checkInitiate } from './initiate-checks.js';
import { DataFile } from './data-file.js';
import {
  emailPattern,
  messages,
  ok,
  okRaw,
  randomHex,
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

export interface StoredTransaction {
  id: number;
  uuid: string;
  transaction_id: string;
  hash_token: string;
  kind: Kind;
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

interface Persisted {
  version: 1;
  seq: number;
  tokens: string[];
  transactions: StoredTransaction[];
  balances: Record<string, number>;
}

type Body = Record<string, unknown>;
const isReply = (x: StoredTransaction | Reply): x is Reply => !('hash_token' in x);
export interface StateOptions {
  /** file to keep the state in across restarts; written atomically (temp file, fsync, rename) */
  dataFile?: string;
  /** the data set served (default: demo) */
  seed?: Seed;
  log?: (line: string) => void;
  /** told of each API request as it is counted (tests compare when requests came with a client's pace) */
  onArrival?: (route: string, at: number) => void;
}

export class SandboxState {
  private seq = 0;
  private tokens = new Set<string>();
  private byHash = new Map<string, StoredTransaction>();
  private references = new Set<string>();
  private balances = new Map<string, number>();
  private readonly log: (line: string) => void;
  private readonly data?: DataFile<Persisted>;

  private readonly seed: Seed;
  private readonly view: SeedView;
  constructor(private readonly opts: StateOptions = {}) {
    this.log = opts.log ?? (() => {});
    this.seed = opts.seed ?? demoSeed;
    this.view = new SeedView(this.seed);
    for (const c of this.seed.currencies) this.balances.set(c.currency.code, c.balance);
    if (opts.dataFile) {
      this.data = new DataFile(opts.dataFile, () => this.snapshot());
      const saved = this.data.read();
      if (saved) this.restore(saved);
    }
  }

  private restore(data: Persisted): void {
    this.seq = data.seq;
    this.tokens = new Set(data.tokens);
    for (const t of data.transactions) {
      this.byHash.set(t.hash_token, t);
      this.references.add(t.reference);
    }
    for (const [code, bal] of Object.entries(data.balances)) this.setBalance(code, bal);
  }

  private snapshot(): Persisted {
    return {
      version: 1,
      seq: this.seq,
      tokens: [...this.tokens],
      transactions: [...this.byHash.values()],
      balances: Object.fromEntries(this.balances),
    };
  }

  private changed(): void {
    this.data?.changed();
  }

  /** Waits for pending writes of --data, then writes once more: used on shutdown. */
  async flush(): Promise<void> {
    await this.data?.flush();
  }

  // Auth ------------------------------------------------------------------------------------------------

  generateToken(body: Body): Reply {
    const key = str(body.merchant_key);
    if (!key) return validationFailure({ merchant_key: [requiredMessage('merchant_key')] });
    if (key !== demoMerchant.merchantKey)
      return validationFailure({ merchant_key: ['The selected merchant key is invalid.'] });
    const token = randomBytes(24).toString('hex');
    this.tokens.add(token);
    this.changed();
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
    this.changed();
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

  // Initiate --------------------------------------------------------------------------------------------

  initiate(kind: Kind, body: Body): Reply {
    const checked = checkInitiate(kind, body, this.seed, this.balances, this.references);
    if ('reply' in checked) return checked.reply;
    const { seed, amount, amountText, email, reference } = checked;
    const type = gatewayTypeOf(kind);
    const ids = kind === 'deposit' ? seed.collection : seed.disbursement;
    const now = new Date();
    const tx: StoredTransaction = {
      id: ++this.seq,
      uuid: randomUUID(),
      transaction_id: `TXN${now.getTime().toString(36).toUpperCase()}${randomHex(6).toUpperCase()}`,
      hash_token: randomHex(64),
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
    this.byHash.set(tx.hash_token, tx);
    this.references.add(reference);
    this.changed();
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
  private find(body: Body, extra: Record<string, string[]> = {}): StoredTransaction | Reply {
    const hash = str(body.hash_token);
    const errors = { ...extra };
    if (!hash) errors.hash_token = [requiredMessage('hash_token')];
    else if (!this.byHash.has(hash)) errors.hash_token = ['The selected hash token is invalid.'];
    if (Object.keys(errors).length > 0) return validationFailure(errors);
    return this.byHash.get(hash!)!;
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
    const tx = this.find(body, statusErrors);
    if (isReply(tx)) return tx;
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
    this.changed();
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
    const tx = this.find(body);
    if (isReply(tx)) return tx;
    if (tx.status !== 'initiated') return shapeA(404, messages.notInitiated);
    const gwErrors = this.gatewayErrors(tx, body.gateway_id);
    if (Object.keys(gwErrors).length > 0) return validationFailure(gwErrors);
    const gw = this.view.gateway(Number(str(body.gateway_id)));
    tx.wallet_address = walletAddress(gw.network, gw.crypto);
    this.changed();
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
    const tx = this.find(body, extra);
    if (isReply(tx)) return tx;
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
        this.changed();
        this.log(`one-time code ${demoMerchant.otp} sent to ${str(body.customer_email)} for ${tx.reference}`);
        return ok(messages.otpSent, []);
      }
      if (!tx.otp_sent || otp !== demoMerchant.otp)
        return validationFailure({ otp: ['The otp is invalid.'] });
      if (tx.amount > (this.balances.get(tx.currency_code) ?? 0)) {
        return validationFailure({ amount: ['The merchant balance is insufficient for this amount.'] });
      }
      this.setBalance(tx.currency_code, round((this.balances.get(tx.currency_code) ?? 0) - tx.amount));
      tx.paid = true;
    }
    tx.gateway_id ??= this.gatewayIds(tx)[0];
    tx.status = 'pending';
    tx.processed_at = new Date().toISOString();
    this.changed();
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

  /** What the sandbox holds, for tests and the `_sandbox` inspection route. */
  list(): StoredTransaction[] {
    return [...this.byHash.values()].map((t) => ({ ...t }));
  }

  balance(code: string): number | undefined {
    return this.balances.get(code);
  }
}
