// The wire: one zod schema per object of the Merchant Payments API spec, with its exact field names
// (typos included: minimum_deposite, weckly_deposite, faild_url, desposit_status, getway_configuration,
// has_token). Parsing is lenient where the spec allows it: unknown fields are kept, numbers may come as
// strings, and fields the spec calls optional, null or a placeholder never fail a parse.
// zod/mini: the same zod 4 schemas, in a tree-shakable form that costs a tenth of the classic API at
// start-up (docs/performance.md).
import * as z from 'zod/mini';
import { transactionStatuses } from './enums.js';

/** A number that may arrive as a numeric string ("10.00"), as `amount` does in initiate responses. */
export const looseNumber = z.pipe(
  z.transform((v: unknown) =>
    typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v,
  ),
  z.number(),
);

/** A boolean that some deployments send as 0/1 or "0"/"1". */
export const looseBoolean = z.pipe(
  z.transform((v: unknown) => {
    if (v === 0 || v === '0' || v === 'false') return false;
    if (v === 1 || v === '1' || v === 'true') return true;
    return v;
  }),
  z.boolean(),
);

/** A string that may be omitted, null, or a placeholder: we keep whatever came. */
const maybeString = z.nullish(z.string());

export const TransactionStatus = z.enum(transactionStatuses);
export type TransactionStatus = z.infer<typeof TransactionStatus>;

export const Country = z.looseObject({
  id: looseNumber,
  name: z.string(),
  code: z.string(),
  dial_code: maybeString,
  flag: maybeString,
});
export type Country = z.infer<typeof Country>;

export const Currency = z.looseObject({
  id: looseNumber,
  name: z.string(),
  code: z.string(),
  symbol: maybeString,
  usd_exchange_rate: z.nullish(looseNumber),
  minimum_deposite: z.nullish(looseNumber),
  maximum_deposite: z.nullish(looseNumber),
  country: z.nullish(Country),
});
export type Currency = z.infer<typeof Currency>;

export const LookupCurrency = z.looseObject({ currency_code: z.string(), country: z.nullish(Country) });

export const Gateway = z.looseObject({
  id: looseNumber,
  name: z.string(),
  logo: maybeString,
  payment_method: maybeString,
  is_crypto: z.nullish(looseNumber),
  comments: maybeString,
  lookup_currency: z.nullish(z.array(LookupCurrency)),
});
export type Gateway = z.infer<typeof Gateway>;

export const GatewayConfiguration = z.looseObject({
  id: looseNumber,
  primary_key: maybeString,
  type: z.string(),
  api_key: maybeString,
  api_user: maybeString,
  payment_server_url: maybeString,
  minimum_fees: z.nullish(looseNumber),
  fee_in_percentage: z.nullish(looseNumber),
  comments: maybeString,
  awaiting_comments: maybeString,
  status: maybeString,
  gateway: Gateway,
});
export type GatewayConfiguration = z.infer<typeof GatewayConfiguration>;

export const MerchantService = z.looseObject({
  id: looseNumber,
  site_id: z.pipe(z.union([z.string(), z.number()]), z.transform(String)),
  item_name: maybeString,
  service_name: maybeString,
  service_type: maybeString,
  success_url: maybeString,
  faild_url: maybeString,
  notification_url: maybeString,
  description: maybeString,
  logo_url: maybeString,
  city: maybeString,
  email: maybeString,
  service_status: maybeString,
  status: maybeString,
  desposit_status: z.nullish(looseBoolean),
  withdraw_status: z.nullish(looseBoolean),
  who_pays_for_fee: maybeString,
});
export type MerchantService = z.infer<typeof MerchantService>;

export const MerchantCurrency = z.extend(Currency, {
  type: maybeString,
  usd_equivalence: z.nullish(looseNumber),
  freemium_amount: z.nullish(looseNumber),
  weckly_deposite: z.nullish(looseNumber),
  min_withdraw: z.nullish(looseNumber),
  max_withdraw: z.nullish(looseNumber),
  weekly_withdraw: z.nullish(looseNumber),
  transfer_fee: z.nullish(looseNumber),
  swap_min_fee: z.nullish(looseNumber),
  swap_rate: z.nullish(looseNumber),
  deposite: z.nullish(looseBoolean),
  withdraw: z.nullish(looseBoolean),
  is_display: z.nullish(looseBoolean),
  status: maybeString,
  swap_status: z.nullish(looseBoolean),
  merchant_status: maybeString,
  total_balance: z.nullish(looseNumber),
  service: z.nullish(MerchantService),
  getway_configuration: z.nullish(z.array(GatewayConfiguration)),
});
export type MerchantCurrency = z.infer<typeof MerchantCurrency>;

export const InitiatedPayment = z.looseObject({
  currency: z.nullish(Currency),
  gateway_configuration: z.array(GatewayConfiguration),
  merchant_service: z.nullish(MerchantService),
  has_token: z.string().check(z.minLength(1)),
  amount: z.pipe(z.union([z.string(), z.number()]), z.transform(String)),
  customer_email: maybeString,
  customer_transaction_id: z.pipe(z.union([z.string(), z.number()]), z.transform(String)),
  country: z.nullish(Country),
});
export type InitiatedPayment = z.infer<typeof InitiatedPayment>;

export const Transaction = z.looseObject({
  id: looseNumber,
  uuid: maybeString,
  transaction_id: z.string(),
  status: z.string(),
  amount: z.nullish(looseNumber),
  currency_code: maybeString,
  net_amount: z.nullish(looseNumber),
  fee_amount: z.nullish(looseNumber),
  transaction_date: maybeString,
  transaction_datetime: maybeString,
  payment_method: maybeString,
  gateway_response: z.optional(z.unknown()),
  service: z.nullish(MerchantService),
  gateway_config: z.nullish(GatewayConfiguration),
});
export type Transaction = z.infer<typeof Transaction>;

export const StatusUpdateResult = z.looseObject({
  transaction_id: z.string(),
  customer_transaction_id: z.pipe(z.union([z.string(), z.number()]), z.transform(String)),
  type: maybeString,
  status: z.string(),
  amount: z.nullish(looseNumber),
  initiate_amount: z.nullish(looseNumber),
  usd_equivalence: z.nullish(looseNumber),
  currency_code: maybeString,
  fee_amount: z.nullish(looseNumber),
  payment_method: maybeString,
  transaction_date: maybeString,
  transaction_time_utc: maybeString,
});
export type StatusUpdateResult = z.infer<typeof StatusUpdateResult>;

export const WalletAddressUpdateResult = z.looseObject({
  country_id: z.nullish(looseNumber),
  gateway_id: looseNumber,
  currency_code: maybeString,
  wallet_address: z.string(),
  code: maybeString,
  network: maybeString,
  status: maybeString,
});
export type WalletAddressUpdateResult = z.infer<typeof WalletAddressUpdateResult>;

// The token goes into an Authorization header: printable ASCII only, or it is not a token.
export const TokenData = z.looseObject({ token: z.string().check(z.regex(/^[\x21-\x7e]+$/)) });

/** The success envelope shared by every endpoint. */
export function envelope<T extends z.ZodMiniType>(data: T) {
  return z.looseObject({ success: z.literal(true), message: z.nullish(z.string()), data });
}

// The three failure shapes of the spec's Errors section.
/** Shape A: 404, 500 (`errors: []`) and 412 (`data: []`). */
export const FailureA = z.looseObject({
  success: z.literal(false),
  message: z.string(),
  errors: z.optional(z.array(z.unknown())),
  data: z.optional(z.array(z.unknown())),
});
/** Shape B: 422 with per-field messages, and 401 without `errors`. */
export const FailureB = z.looseObject({
  status: z.literal(false),
  message: z.string(),
  errors: z.optional(z.record(z.string(), z.array(z.string()))),
});
/** Public list failures. */
export const FailurePublic = z.looseObject({
  success: z.literal(false),
  message: z.string(),
  error_code: looseNumber,
});
export const Failure = z.union([FailureB, FailurePublic, FailureA]);
export type Failure = z.infer<typeof Failure>;

// Requests. Field names are the spec's; the CLI validates its own input before building these.
export const TokenRequest = z.object({ merchant_key: z.string().check(z.minLength(1)) });

export const InitiateRequest = z.object({
  merchant_key: z.string(),
  site_id: z.union([z.string(), z.number()]),
  api_key: z.string(),
  currency_code: z.string(),
  country_code: z.string(),
  customer_first_name: z.string(),
  customer_last_name: z.optional(z.string()),
  customer_phone: z.string(),
  customer_email: z.string(),
  customer_transaction_id: z.string(),
  amount: z.union([z.string(), z.number()]),
});
export type InitiateRequest = z.infer<typeof InitiateRequest>;

export const DepositProcessedRequest = z.object({
  hash_token: z.string(),
  phone_number: z.string(),
  receiver_email: z.optional(z.string()),
});
export type DepositProcessedRequest = z.infer<typeof DepositProcessedRequest>;

export const WithdrawProcessedRequest = z.extend(DepositProcessedRequest, {
  customer_email: z.string(),
  otp: z.optional(z.union([z.string(), z.number()])),
});
export type WithdrawProcessedRequest = z.infer<typeof WithdrawProcessedRequest>;

export const StatusUpdateRequest = z.object({
  hash_token: z.string(),
  status: TransactionStatus,
  gateway_id: z.union([z.string(), z.number()]),
});
export type StatusUpdateRequest = z.infer<typeof StatusUpdateRequest>;

export const WalletUpdateRequest = z.object({
  hash_token: z.string(),
  gateway_id: z.union([z.string(), z.number()]),
});
export type WalletUpdateRequest = z.infer<typeof WalletUpdateRequest>;

/** Withdraw processed answers either "code sent" (`data: []`) or the processed Transaction. */
export const WithdrawProcessedData = z.union([z.array(z.unknown()).check(z.maxLength(0)), Transaction]);
