// The OpenAPI 3.1 document of the API, generated from the wire schemas in api/schemas.ts (OpenAPI 3.1
// speaks JSON Schema 2020-12, which is what zod emits), so the documentation cannot drift from the parser.
import * as z from 'zod/mini';
import * as s from '../api/schemas.js';
import { apiBase, endpointList, type EndpointId } from '../api/endpoints.js';

const schema = (t: z.ZodMiniType, io: 'input' | 'output' = 'output') =>
  z.toJSONSchema(t, { target: 'draft-2020-12', io, unrepresentable: 'any', reused: 'inline' });

const components = {
  Country: s.Country,
  Currency: s.Currency,
  MerchantCurrency: s.MerchantCurrency,
  MerchantService: s.MerchantService,
  GatewayConfiguration: s.GatewayConfiguration,
  Gateway: s.Gateway,
  InitiatedPayment: s.InitiatedPayment,
  Transaction: s.Transaction,
  StatusUpdateResult: s.StatusUpdateResult,
  WalletAddressUpdateResult: s.WalletAddressUpdateResult,
  FailureA: s.FailureA,
  FailureB: s.FailureB,
  FailurePublic: s.FailurePublic,
};

const ref = (name: keyof typeof components) => ({ $ref: `#/components/schemas/${name}` });
const success = (data: object) => ({
  description: 'Success',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: { success: { const: true }, message: { type: 'string' }, data },
      },
    },
  },
});
const failure = (description: string, name: 'FailureA' | 'FailureB' | 'FailurePublic') => ({
  description,
  content: { 'application/json': { schema: ref(name) } },
});
const bodies = (t: z.ZodMiniType, encodings: string[]) => ({
  required: true,
  content: Object.fromEntries(encodings.map((e) => [e, { schema: schema(t, 'input') }])),
});
const all = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
const formFirst = ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'];
const bearer = [{ bearer: [] }];

export const gapReadings = [
  'Encoding: token generate, status update and wallet address update are sent as multipart/form-data by mpay; every other POST as JSON. This server accepts JSON, urlencoded and multipart on every POST.',
  'HTTP status of a token generate failure: 422, with shape B and errors.merchant_key.',
  'Body of the 403 (invalid merchant_key, site_id or api_key on withdraw initiate): shape A, {success:false, message, errors:[]}.',
  'Deposit initiate reports an unknown currency as a 422 on currency_code; withdraw initiate as the 412 "This currency is not exits".',
  'Amount bounds are enforced at initiate: minimum_deposite/maximum_deposite for deposits, min_withdraw/max_withdraw and the merchant balance for withdrawals, as a 422 on amount.',
  'Withdraw processed: without otp the server sends a one-time code to customer_email and answers 200 with data []; with the right otp it processes the withdrawal (200 with the Transaction); a wrong otp is a 422 on otp. The sandbox code is 123456, also written to its log.',
  'Processed (deposit and withdraw) moves the transaction from initiated to pending; status update sets the given status and binds the gateway_id, which must be one of the gateway configurations returned by initiate (422 otherwise).',
  'Withdraw processed on a withdrawal already paid is a 422 on hash_token, checked before the status.',
  'A processed withdrawal reduces the merchant balance of its currency.',
  'Token lifetime: tokens do not expire in the sandbox; POST /_sandbox/revoke-tokens revokes them all, for tests of token refresh.',
  'Successful responses are 200.',
  'Every bearer endpoint answers 401 {status:false, message:"UnAuthenticated User"} without a valid token, before it reads the body.',
  'Faults asked for with the X-Mpay-Sandbox-Fault header or --fault (an HTML 502, malformed JSON, a dropped connection…) are deliberately outside this document, except the 500.',
  'The wallet address update "must be called before" the status update for the gateways the spec lists (the service, USDT on TRC20, USDC on ERC20, the card on-ramps, the interbank e-transfer): a status update on such a gateway before it is a 422 on wallet_address. Other gateways take a wallet update too, but need none.',
  'An unknown route answers 404 as a web framework does, {message: "The route … could not be found."}, not in shape A, whose 404 means that a transaction is not in status initiated.',
  'Rate limits: the spec shows none; a real API has them. With mpay sandbox --rate-limit N/s, beyond N API requests in a window of one second the answer is 429, shape A {success:false, message:"Too Many Attempts."}, with Retry-After in whole seconds until the window ends; a 429 changes nothing. --latency MS delays every API request by MS.',
  'Two data sets (mpay sandbox --seed demo|alt): the same kinds of gateway, the second with other ids, names and field spellings (numbers as strings, nulls, extra fields).',
];

/**
 * What every operation may answer besides its own: 401 on the bearer ones without a valid token, 500 when
 * the sandbox fails (or is asked to, X-Mpay-Sandbox-Fault: 500), 429 when it runs with --rate-limit.
 */
function withCommonAnswers<
  P extends Record<string, Record<string, { security?: unknown; responses: Record<number, unknown> }>>,
>(paths: P): P {
  for (const [path, ops] of Object.entries(paths))
    for (const op of Object.values(ops)) {
      if (op.security) op.responses[401] ??= failure('UnAuthenticated User', 'FailureB');
      // the public lists fail in their own shape; the merchant's list at a public path in shape A
      op.responses[500] ??=
        path.startsWith(`${apiBase}public/`) && !path.includes('/merchant/')
          ? failure('List failure', 'FailurePublic')
          : failure('Server error', 'FailureA');
      op.responses[429] = {
        ...failure('Too Many Attempts. (with --rate-limit only; nothing was processed)', 'FailureA'),
        headers: {
          'Retry-After': { description: 'seconds to wait before sending again', schema: { type: 'integer' } },
        },
      };
    }
  return paths;
}

type Responses = Record<number, unknown>;
const merchantList = { 200: success({ type: 'array', items: ref('MerchantCurrency') }) };
const onInitiated = (data: keyof typeof components) => ({
  200: success(ref(data)),
  404: failure('Transaction status is not initiated.', 'FailureA'),
  422: failure('Validation failed.', 'FailureB'),
});

/** What each endpoint of the table (api/endpoints.ts, which says where it is and what it takes) answers. */
const responses: { [I in EndpointId]: Responses } = {
  publicCurrencies: { 200: success({ type: 'array', items: ref('Currency') }) },
  publicCountries: { 200: success({ type: 'array', items: ref('Country') }) },
  tokenGenerate: {
    200: success({ type: 'object', properties: { token: { type: 'string' } } }),
    422: failure('Invalid merchant key', 'FailureB'),
  },
  merchantCurrencies: merchantList,
  publicMerchantCurrencies: merchantList,
  depositInitiate: {
    200: success(ref('InitiatedPayment')),
    422: failure('Validation failed.', 'FailureB'),
  },
  depositProcessed: onInitiated('Transaction'),
  statusUpdate: onInitiated('StatusUpdateResult'),
  walletUpdate: onInitiated('WalletAddressUpdateResult'),
  withdrawInitiate: {
    200: success(ref('InitiatedPayment')),
    403: failure('Invalid merchant credentials', 'FailureA'),
    412: failure('This currency is not exits', 'FailureA'),
    422: failure('Validation failed.', 'FailureB'),
  },
  withdrawProcessed: {
    200: success({ oneOf: [{ type: 'array', maxItems: 0 }, ref('Transaction')] }),
    404: failure('Transaction status is not initiated.', 'FailureA'),
    412: failure('This currency is not exits', 'FailureA'),
    422: failure('Validation failed.', 'FailureB'),
  },
};

/** The document's paths: one operation an endpoint of the table, in its order. */
function tablePaths() {
  const out: Record<
    string,
    Record<string, { summary: string; security?: unknown; responses: Responses }>
  > = {};
  for (const e of endpointList) {
    (out[`${apiBase}${e.path}`] ??= {})[e.method.toLowerCase()] = {
      summary: e.summary,
      ...(e.bearer && { security: bearer }),
      // the form-data endpoints list form-data first; the sandbox takes every encoding on every POST
      ...(e.request && { requestBody: bodies(e.request, e.encoding === 'multipart' ? formFirst : all) }),
      responses: { ...responses[e.id] },
    };
  }
  return out;
}

export function openApiDocument(serverUrl?: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Merchant Payments REST API (mpay sandbox)',
      version: 'v1',
      description: `Generated from mpay's wire schemas. Readings of the spec's gaps:\n\n${gapReadings.map((g) => `- ${g}`).join('\n')}`,
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: Object.fromEntries(Object.entries(components).map(([k, v]) => [k, schema(v)])),
    },
    paths: withCommonAnswers(tablePaths()),
  };
}

/** A readable page for people: the endpoints and the readings, with a link to the JSON document. */
export function documentationPage(doc: Record<string, unknown>): string {
  const esc = (t: string) =>
    t.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const paths = doc.paths as Record<
    string,
    Record<string, { summary: string; responses: Record<string, unknown> }>
  >;
  const rows = Object.entries(paths)
    .flatMap(([p, ops]) =>
      Object.entries(ops).map(
        ([m, op]) =>
          `<tr><td><code>${m.toUpperCase()}</code></td><td><code>${esc(p)}</code></td><td>${esc(op.summary)}</td><td>${Object.keys(op.responses).join(', ')}</td></tr>`,
      ),
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Merchant Payments API: mpay sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td,th{padding:.3rem .6rem;border-bottom:1px solid #ddd;text-align:left}</style></head>
<body><h1>Merchant Payments API</h1><p>The mpay sandbox. Machine-readable: <a href="/restapi/documentation/openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
<table><tr><th>Method</th><th>Path</th><th>What</th><th>Statuses</th></tr>
${rows}</table>
<h2>Readings of the spec's gaps</h2><ul>${gapReadings.map((g) => `<li>${esc(g)}</li>`).join('')}</ul></body></html>`;
}
