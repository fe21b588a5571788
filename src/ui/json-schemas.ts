// The schema of every command's --json output: the contract scripts rely on. Changes to it are additive
// only (a new key, never a renamed or removed one). `npm run json-schemas` exports them as JSON Schema to
// docs/json/, and a test checks both that the files are current and that real output matches them.
// Objects are loose: a consumer must accept keys it does not know.
import * as z from 'zod/mini';
import { exitCodes } from '../common/errors.js';
import { paymentKinds } from '../api/enums.js';
import * as api from '../api/schemas.js';

const nullable = <T extends z.ZodMiniType>(t: T) => z.nullable(t);
const kinds = Object.keys(exitCodes) as [keyof typeof exitCodes, ...(keyof typeof exitCodes)[]];

/** What every command prints on stdout when it fails, with --json. */
export const ErrorOutput = z.looseObject({
  error: z.looseObject({
    kind: z.enum(kinds),
    status: nullable(z.number()),
    message: z.string(),
    fields: z.record(z.string(), z.array(z.string())),
    hint: z.optional(z.string()),
  }),
});

/** --dry-run: the request mpay would have sent, redacted, and as curl. */
export const DryRunOutput = z.looseObject({
  dry_run: z.literal(true),
  request: z.looseObject({
    method: z.enum(['GET', 'POST']),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    encoding: z.enum(['none', 'json', 'multipart']),
    // as it goes out: strings for form-data, the values' own types for a JSON body
    body: z.optional(z.record(z.string(), z.unknown())),
  }),
  curl: z.string(),
});

const Step = z.looseObject({
  step: z.string(),
  outcome: z.enum(['sent', 'ok', 'failed', 'ambiguous', 'throttled', 'taken_over']),
  at: z.string(),
  detail: z.optional(z.string()),
});

/** deposit, withdraw (and --resume), deposit/withdraw initiate and process, status, wallet, history show. */
export const TransactionOutput = z.looseObject({
  kind: z.enum(paymentKinds),
  reference: z.string(),
  hash_token: nullable(z.string()),
  status: nullable(z.string()),
  transaction_id: nullable(z.string()),
  gateway: nullable(
    z.looseObject({ id: z.number(), name: nullable(z.string()), payment_method: nullable(z.string()) }),
  ),
  requested: nullable(z.looseObject({ amount: z.string(), currency: z.string() })),
  settled: nullable(
    z.looseObject({
      amount: nullable(z.number()),
      currency: nullable(z.string()),
      fee: nullable(z.number()),
      net: nullable(z.number()),
    }),
  ),
  wallet_address: nullable(z.string()),
  next: nullable(z.literal('otp')),
  resume: nullable(z.string()),
  message: nullable(z.string()),
  data: z.looseObject({
    initiate: z.optional(api.InitiatedPayment),
    wallet: z.optional(api.WalletAddressUpdateResult),
    status_update: z.optional(api.StatusUpdateResult),
    processed: z.optional(api.Transaction),
  }),
  steps: z.optional(z.array(Step)),
  created_at: z.optional(z.string()),
  updated_at: z.optional(z.string()),
  customer: z.optional(z.looseObject({})),
});

export const HistoryRecord = z.looseObject({
  reference: z.string(),
  kind: z.enum(paymentKinds),
  hash_token: z.optional(z.string()),
  amount: z.optional(z.string()),
  currency: z.optional(z.string()),
  status: z.optional(z.string()),
  gateway_id: z.optional(z.number()),
  created_at: z.string(),
  updated_at: z.string(),
  steps: z.array(Step),
  /** "mpay mcp": an assistant started it (docs/mcp.md) */
  via: z.optional(z.string()),
});

const text = nullable(z.string());

/** `mpay history export`: one line of its JSON lines (and the columns of its CSV). */
export const HistoryExportRow = z.looseObject({
  server: text,
  merchant: text,
  profile: text,
  env: text,
  reference: z.string(),
  hash_token: text,
  kind: z.enum(paymentKinds),
  amount: text,
  currency: text,
  status: text,
  created_at: z.string(),
  updated_at: z.string(),
  transaction_id: text,
  gateway_id: nullable(z.number()),
  customer_first_name: text,
  customer_last_name: text,
  customer_phone: text,
  customer_email: text,
  resolved_as: text,
});

export const DoctorOutput = z.looseObject({
  ok: z.boolean(),
  checks: z.array(
    z.looseObject({ name: z.string(), ok: z.boolean(), detail: z.string(), hint: z.optional(z.string()) }),
  ),
});

export const TokenOutput = z.looseObject({
  token: z.string(),
  profile: z.string(),
  env: z.string(),
  base_url: z.string(),
  created_at: z.string(),
});

export const WhoamiOutput = z.looseObject({
  profile: z.string(),
  env: z.string(),
  base_url: z.string(),
  merchant_key_fingerprint: nullable(z.string()),
  merchant_key_from: z.string(),
  site_id: nullable(z.string()),
  api_key_fingerprint: nullable(z.string()),
  cached_token: z.boolean(),
  cached_tokens: z.array(
    z.looseObject({ merchant_key_fingerprint: z.string(), created_at: z.string(), used: z.boolean() }),
  ),
  config_dir: z.string(),
});

export const LoginOutput = z.looseObject({
  profile: z.string(),
  env: z.string(),
  base_url: z.string(),
  merchant_key: z.string(),
  site_id: z.string(),
  verified: z.boolean(),
  config: z.string(),
  /** the profile that was current before, when login made another one current */
  previous_profile: z.optional(z.string()),
  /** the profile's base URL for this environment before, when login pointed it elsewhere */
  previous_base_url: z.optional(z.string()),
  /** what the profile written held before this login; null when login made it */
  profile_before: nullable(
    z.looseObject({ env: nullable(z.string()), base_urls: z.record(z.string(), z.string()) }),
  ),
});

/** Each command's --json document on success, by command. */
export const outputs = {
  transaction: TransactionOutput,
  demo: z.array(TransactionOutput),
  countries: z.array(api.Country),
  currencies: z.array(api.Currency),
  balances: z.array(api.MerchantCurrency),
  history: z.array(HistoryRecord),
  'history-export': HistoryExportRow,
  doctor: DoctorOutput,
  token: TokenOutput,
  whoami: WhoamiOutput,
  login: LoginOutput,
  error: ErrorOutput,
  'dry-run': DryRunOutput,
} as const;

/** The JSON Schema document of one output (draft 2020-12), as docs/json/<name>.schema.json holds it. */
export function jsonSchemaOf(name: keyof typeof outputs): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `mpay --json: ${name}`,
    ...z.toJSONSchema(outputs[name], {
      target: 'draft-2020-12',
      io: 'output',
      unrepresentable: 'any',
      reused: 'inline',
    }),
  };
}
