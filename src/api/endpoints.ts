// The one description of the API's endpoints: each one's method and path, how mpay encodes its body,
// whether it needs the bearer token, whether and how it moves money, its request and answer schemas, which
// of its fields are secret, a customer's personal data, or name the transaction, and how its answers are
// told apart. The client, the money gate, the scrubber, the HAR reader, replay, the scenario writer and
// runner, dry runs, `history show --curl`, the proxy's conformance check, the sandbox's routes and the
// OpenAPI document read it; none of them writes a path or a field list of its own. Adding an endpoint is
// one entry here (docs/architecture.md says how).
import * as z from 'zod/mini';
import type { PaymentKind } from './enums.js';
import * as s from './schemas.js';
import type { Encoding } from './wire.js';

/** Where every path below lives on a server: relative to it. */
export const apiBase = '/restapi/v1/';

export type MoneyStep = 'initiate' | 'wallet' | 'status' | 'processed';

export interface Endpoint {
  method: 'GET' | 'POST';
  /** relative to /restapi/v1/ */
  path: string;
  /** what it does, in a few words (the OpenAPI document's summary) */
  summary: string;
  /** how mpay sends its body: the API takes token generate and the two updates as form-data (a reading) */
  encoding: Encoding;
  /** a bearer token is sent (and a server answers 401 without one, before it reads the body) */
  bearer: boolean;
  /** the endpoint makes or moves a payment: the money gate's; `kind` when the endpoint itself names one */
  money?: { kind?: PaymentKind; step: MoneyStep };
  /** its answer is the bearer token */
  token?: true;
  /** the request's fields, as zod checks them */
  request?: z.ZodMiniType;
  /** the answer's `data` */
  data: z.ZodMiniType;
  /** request fields that hold a secret */
  secret: readonly string[];
  /** answer fields (of `data`) that hold a secret */
  secretAnswer: readonly string[];
  /**
   * where the journal's 'sent' line of a money step keeps a request field, as a dotted path in its data,
   * for a field it keeps under another name (a secret's path holds only whether one was sent): what
   * `history show --curl` builds the request again from. A field not named here is kept under its own.
   */
  journal?: Readonly<Record<string, string>>;
  /** request fields the run's own credentials supply (never a trace's) */
  credentials: readonly string[];
  /** request fields that are a customer's personal data */
  personal: readonly string[];
  /**
   * request fields that name the transaction (each one of api/transaction-fields.ts, which the journal
   * keeps whole: test/endpoints.test.ts), and the answer's field that names a new one
   */
  names: readonly string[];
  namesAnswer?: string;
  /** the answers it gives on success, told apart by their data (withdraw processed: code sent or processed) */
  answers?: (data: unknown) => string;
  /** served by the sandbox and read in traces, never called by mpay's client: another path for a list */
  alias?: true;
}

const none = [] as const;
const merchant = ['merchant_key', 'site_id', 'api_key'] as const;
const customer = ['customer_first_name', 'customer_last_name', 'customer_phone', 'customer_email'] as const;
const confirmer = ['phone_number', 'customer_email', 'receiver_email'] as const;
const read = { secret: none, secretAnswer: none, credentials: none, personal: none, names: none };
/** What the two initiates share: the merchant's credentials and the customer, under a new reference. */
const initiate = {
  encoding: 'json',
  bearer: true,
  request: s.InitiateRequest,
  data: s.InitiatedPayment,
  secret: ['merchant_key', 'api_key'],
  secretAnswer: none,
  credentials: merchant,
  personal: customer,
  names: ['customer_transaction_id'],
  namesAnswer: 'has_token',
  journal: {
    currency_code: 'currency',
    country_code: 'country',
    customer_first_name: 'customer.first_name',
    customer_last_name: 'customer.last_name',
    customer_phone: 'customer.phone',
    customer_email: 'customer.email',
  },
} as const;

export const endpoints = {
  publicCurrencies: {
    method: 'GET',
    path: 'public/currencies',
    summary: 'Supported currencies',
    encoding: 'none',
    bearer: false,
    data: z.array(s.Currency),
    ...read,
  },
  publicCountries: {
    method: 'GET',
    path: 'public/countries',
    summary: 'Supported countries',
    encoding: 'none',
    bearer: false,
    data: z.array(s.Country),
    ...read,
  },
  tokenGenerate: {
    method: 'POST',
    path: 'auth/merchant/token/generate',
    summary: 'Exchange a merchant key for a bearer token',
    encoding: 'multipart',
    bearer: false,
    token: true,
    request: s.TokenRequest,
    data: s.TokenData,
    ...read,
    secret: ['merchant_key'],
    secretAnswer: ['token'],
    credentials: ['merchant_key'],
  },
  merchantCurrencies: {
    method: 'GET',
    path: 'merchant/currencies',
    summary: "The merchant's currencies, balances and services",
    encoding: 'none',
    bearer: true,
    data: z.array(s.MerchantCurrency),
    ...read,
  },
  publicMerchantCurrencies: {
    method: 'GET',
    path: 'public/merchant/currencies',
    summary: "The merchant's currencies (the same list, at the path the spec's initiate notes name)",
    encoding: 'none',
    bearer: true,
    data: z.array(s.MerchantCurrency),
    alias: true,
    ...read,
  },
  depositInitiate: {
    method: 'POST',
    path: 'payments/initiate',
    summary: 'Deposit initiate',
    money: { kind: 'deposit', step: 'initiate' },
    ...initiate,
  },
  depositProcessed: {
    method: 'POST',
    path: 'payments/processed',
    summary: 'Deposit processed',
    encoding: 'json',
    bearer: true,
    money: { kind: 'deposit', step: 'processed' },
    request: s.DepositProcessedRequest,
    data: s.Transaction,
    secret: none,
    secretAnswer: none,
    credentials: none,
    personal: confirmer,
    names: ['hash_token'],
  },
  statusUpdate: {
    method: 'POST',
    path: 'payments/status/update',
    summary: 'Payment status update',
    encoding: 'multipart',
    bearer: true,
    money: { step: 'status' },
    request: s.StatusUpdateRequest,
    data: s.StatusUpdateResult,
    journal: { status: 'requested_status' },
    secret: none,
    secretAnswer: none,
    credentials: none,
    personal: none,
    names: ['hash_token'],
  },
  walletUpdate: {
    method: 'POST',
    path: 'payments/crypto/wallet/address/update',
    summary: 'Crypto wallet address update',
    encoding: 'multipart',
    bearer: true,
    money: { step: 'wallet' },
    request: s.WalletUpdateRequest,
    data: s.WalletAddressUpdateResult,
    secret: none,
    secretAnswer: none,
    credentials: none,
    personal: none,
    names: ['hash_token'],
  },
  withdrawInitiate: {
    method: 'POST',
    path: 'payments/withdraw/initiate',
    summary: 'Withdraw initiate',
    money: { kind: 'withdraw', step: 'initiate' },
    ...initiate,
  },
  withdrawProcessed: {
    method: 'POST',
    path: 'payments/withdraw/processed',
    summary: 'Withdraw processed (sends a one-time code, then processes with it)',
    encoding: 'json',
    bearer: true,
    money: { kind: 'withdraw', step: 'processed' },
    request: s.WithdrawProcessedRequest,
    data: s.WithdrawProcessedData,
    journal: { otp: 'with_otp' },
    secret: ['otp'],
    secretAnswer: none,
    credentials: none,
    personal: confirmer,
    names: ['hash_token'],
    // without otp the code is sent (data []), with the right one the withdrawal is processed
    answers: (data) => (Array.isArray(data) ? 'code sent' : 'processed'),
  },
} as const satisfies Record<string, Endpoint>;

export type EndpointId = keyof typeof endpoints;

/** Every endpoint with its id, in the table's order. */
export const endpointList: readonly (Endpoint & { id: EndpointId })[] = Object.entries(endpoints).map(
  ([id, e]) => ({ ...(e as Endpoint), id: id as EndpointId }),
);

/** An endpoint by id, typed as the general shape (for code that reads any of them). */
export const endpoint = (id: EndpointId): Endpoint => endpoints[id];

/** The endpoint a method and an API path (relative to /restapi/v1/, no query) name, if any. */
export function endpointAt(method: string, path: string): (Endpoint & { id: EndpointId }) | undefined {
  const p = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return endpointList.find((e) => e.method === method.toUpperCase() && e.path === p);
}

/** The money endpoint of a payment's step (the status and wallet updates serve both kinds). */
export function moneyEndpointFor(kind: PaymentKind, step: MoneyStep): Endpoint & { id: EndpointId } {
  const e = endpointList.find((x) => x.money?.step === step && (x.money.kind ?? kind) === kind);
  if (!e) throw new Error(`no endpoint for the ${kind} step ${step}`);
  return e;
}

/** The fields of an endpoint's request, as its request schema describes them, in its order. */
export function requestFields(e: Endpoint): string[] {
  const shape = (e.request as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** A request field as the journal's 'sent' line of its step keeps it (`journal`), if it does. */
export function journaledField(e: Endpoint, data: Record<string, unknown>, field: string): unknown {
  let v: unknown = data;
  for (const k of (e.journal?.[field] ?? field).split('.'))
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** Every request field name some endpoint holds a secret in (the scrubber's names from the table). */
export const secretFields: readonly string[] = [
  ...new Set(endpointList.flatMap((e) => [...e.secret, ...e.secretAnswer])),
];

/** Every request field name that is a customer's personal data somewhere. */
export const personalFields: readonly string[] = [...new Set(endpointList.flatMap((e) => e.personal))];

/** A phone of the recorded one's length, its first three digits kept (the country code), then 2000…. */
function neutralPhone(recorded: unknown): string {
  const digits = String(recorded ?? '').replace(/\D/g, '');
  return `+${digits.slice(0, 3)}2${'0'.repeat(Math.max(6, digits.length - 4))}`;
}

/**
 * The neutral value that stands in for a customer's personal data, by field, wherever a recorded one must
 * not be sent again (a saved scenario's defaults, a replay to a server that is not a sandbox).
 */
export const neutralCustomer: Readonly<Record<string, (recorded: unknown) => string>> = {
  customer_first_name: () => 'Test',
  customer_last_name: () => 'Customer',
  customer_email: () => 'customer@example.com',
  receiver_email: () => 'receiver@example.com',
  customer_phone: neutralPhone,
  phone_number: neutralPhone,
};
