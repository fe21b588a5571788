// The sandbox's state and every rule of the spec's States table. Handlers in server.ts only parse bodies
// and hand over to these methods; every method is synchronous, so check-and-insert (the uniqueness of a
// customer_transaction_id under concurrent initiates) cannot interleave.
import { randomBytes } from 'node:crypto';
import { SeedView } from './seed-view.js';
import { checkInitiate } from './initiate-checks.js';
import { SandboxStore } from './tx-store.js';
import { readOldFormat } from './old-format.js';
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

type Body = Record<string, unknown>;
const isReply = (x: StoredTransaction | Reply): x is Reply => !('hash_token' in x);
export interface StateOptions {
  /** the SQLite database to keep the state in across restarts (tx-store.ts); in memory without */
  dataFile?: string;
  /** the data set served (default: demo) */
  seed?: Seed;
  log?: (line: string) => void;
  /** told of each API request as it is counted (tests compare when requests came with a client's pace) */
  onArrival?: (route: string, at: number) => void;
}

/** How a start found its data file: new (none, or 0 bytes) and so empty, or holding transactions. */
export interface DataStart {
  fresh: boolean;
  transactions: number;
}

export class SandboxState {
  private readonly store: SandboxStore;
  private readonly log: (line: string) => void;
  private readonly seed: Seed;
  /** the data set's lists and lookups (the public lists are answered from it alone) */
  readonly view: SeedView;
  /** How the data file was found at the start (none without --data): new and empty, or holding some. */
  readonly dataStart?: DataStart;

  constructor(private readonly opts: StateOptions = {}) {
    this.log = opts.log ?? (() => {});
    this.seed = opts.seed ?? demoSeed;
    this.view = new SeedView(this.seed);
    const file = opts.dataFile;
    const started = performance.now();
    const { store, imported } = SandboxStore.open(file, this.seed, (f) => readOldFormat(f, this.log));
    this.store = store;
    if (imported)
      this.log(
        `converted ${file} to an SQLite database (${imported.transactions} transactions; the old file kept as ${imported.keptAs})`,
      );
    const transactions = file ? store.size() : 0;
    if (!file) return;
    this.dataStart = { fresh: !imported && transactions === 0, transactions };
    this.log(
      `opened ${file}: ${transactions} transactions, in ${((performance.now() - started) / 1000).toFixed(3)} s`,
    );
  }

  /** Resolves once every change so far is committed (an answer waits for it). */
  committed(): Promise<void> {
    return this.store.committed();
  }

  /** Closes the database (its lock released): used on shutdown, and when a start failed after opening it. */
  close(): void {
    this.store.close();
  }

  // Auth ------------------------------------------------------------------------------------------------

  generateToken(body: Body): Reply {
    const key = str(body.merchant_key);
    if (!key) return validationFailure({ merchant_key: [requiredMessage('merchant_key')] });
    if (key !== demoMerchant.merchantKey)
      return validationFailure({ merchant_key: ['The selected merchant key is invalid.'] });
    const token = randomBytes(24).toString('hex');
    this.store.addToken(token);
    return ok('Token generated successfully.', { token });
  }

  isAuthorized(header: string | undefined): boolean {
    const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    return !!m && this.store.hasToken(m[1]!);
  }

  /** For tests of the client's refresh: every issued token stops working. */
  revokeTokens(): number {
    return this.store.revokeTokens();
  }

  // Reads -----------------------------------------------------------------------------------------------

  /** Cached until a balance changes: the list is the same for every request in between. */
  private merchantList?: { reply: Reply; changes: number };

  merchantCurrencies(): Reply {
    if (this.merchantList?.changes !== this.store.balanceChanges)
      this.merchantList = {
        reply: this.view.merchantCurrencies(this.store.balances()),
        changes: this.store.balanceChanges,
      };
    return this.merchantList.reply;
  }

  // Initiate --------------------------------------------------------------------------------------------

  initiate(kind: Kind, body: Body): Reply {
    const checked = checkInitiate(kind, body, this.seed, this.store.balances(), this.store.references);
    if ('reply' in checked) return checked.reply;
    const { seed, amount, amountText, email, reference } = checked;
    const type = gatewayTypeOf(kind);
    const ids = kind === 'deposit' ? seed.collection : seed.disbursement;
    const now = new Date();
    const tx = this.store.add({
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
    });
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
    const tx = hash ? this.store.byHash(hash) : undefined;
    if (!hash) errors.hash_token = [requiredMessage('hash_token')];
    else if (!tx) errors.hash_token = ['The selected hash token is invalid.'];
    if (Object.keys(errors).length > 0) return validationFailure(errors);
    return tx!;
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
    this.store.save(tx);
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
    this.store.save(tx);
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

  /** Deposit or withdraw processed: the transaction goes pending (a withdrawal, with its code, is paid). */
  processed(kind: Kind, body: Body): Reply {
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
        this.store.save(tx);
        this.log(`one-time code ${demoMerchant.otp} sent to ${str(body.customer_email)} for ${tx.reference}`);
        return ok(messages.otpSent, []);
      }
      if (!tx.otp_sent || otp !== demoMerchant.otp)
        return validationFailure({ otp: ['The otp is invalid.'] });
      const balance = this.store.balances().get(tx.currency_code) ?? 0;
      if (tx.amount > balance)
        return validationFailure({ amount: ['The merchant balance is insufficient for this amount.'] });
      tx.paid = true;
    }
    tx.gateway_id ??= this.gatewayIds(tx)[0];
    tx.status = 'pending';
    tx.processed_at = new Date().toISOString();
    // the balance and the transaction change in one commit
    this.store.change(() => {
      if (tx.paid && kind === 'withdraw') {
        const balance = this.store.balances().get(tx.currency_code) ?? 0;
        this.store.setBalance(tx.currency_code, round(balance - tx.amount));
      }
      this.store.save(tx);
    });
    if (receiver) this.log(`confirmation sent to ${receiver} for ${tx.reference}`);
    return ok(
      kind === 'deposit' ? 'Payment processed successfully.' : 'Withdraw processed successfully.',
      this.view.transaction(tx),
    );
  }

  /** Counts a request by method and path: tests check that a money-moving POST was sent once. */
  count(route: string): void {
    this.store.count(route);
    this.opts.onArrival?.(route, Date.now());
  }

  requestCounts(): Record<string, number> {
    return this.store.requestCounts();
  }

  /** How many transactions the sandbox holds. */
  size(): number {
    return this.store.size();
  }

  /** What the sandbox holds, for tests and the `_sandbox` inspection route. */
  list(): StoredTransaction[] {
    return this.store.list();
  }

  balance(code: string): number | undefined {
    return this.store.balances().get(code);
  }
}
