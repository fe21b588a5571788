// The sandbox's OpenAPI document lists every answer its routes give: each API route is driven over real
// HTTP into each answer it has (success, no or a wrong bearer token, a body it refuses, a transaction in
// the wrong state, wrong credentials, an unknown currency, a server fault, a rate limit), and every answer's
// status must be listed for that operation, its body valid against the listed schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { sandbox } from './helpers.js';
import { apiRoutes } from '../src/sandbox/routes.js';
import { demoMerchant } from '../src/sandbox/seed.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
type Doc = {
  components: Record<string, unknown>;
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
};
interface Answer {
  route: string;
  status: number;
  body: unknown;
}

const prefix = '/restapi/v1';
let refs = 0;
const customer = (over: Record<string, unknown> = {}) => ({
  merchant_key: demoMerchant.merchantKey,
  site_id: 1,
  api_key: demoMerchant.apiKey,
  currency_code: 'GHS',
  country_code: 'GH',
  customer_first_name: 'Ama',
  customer_phone: '+233201234567',
  customer_email: 'ama@example.com',
  customer_transaction_id: `doc-${Date.now()}-${++refs}`,
  amount: '20',
  ...over,
});

/** Sends one request; what came back, by route as the document names it. */
async function send(
  sb: Sb,
  method: 'GET' | 'POST',
  path: string,
  opts: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(`${sb.url}${prefix}${path}`, {
    method,
    headers: {
      ...(method === 'POST' && { 'content-type': 'application/json' }),
      ...(opts.token && { authorization: `Bearer ${opts.token}` }),
      ...opts.headers,
    },
    body: method === 'POST' ? (opts.raw ?? JSON.stringify(opts.body ?? {})) : undefined,
  });
  return { route: `${method} ${path}`, status: res.status, body: JSON.parse(await res.text()) };
}

describe('the OpenAPI document and the answers of the routes', () => {
  let sb: Sb;
  let limited: Sb;
  let doc: Doc;
  let ajv: Ajv2020;
  beforeAll(async () => {
    sb = await sandbox();
    limited = await sandbox({ rateLimit: { limit: 1, windowMs: 60_000 } });
    doc = await (await fetch(`${sb.url}/restapi/documentation/openapi.json`)).json();
    ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'mpay-doc', components: doc.components });
  });
  afterAll(async () => {
    await sb.close();
    await limited.close();
  });

  it('documents each route the sandbox serves, and serves each route it documents', () => {
    const served = apiRoutes.map((r) => `${r.method} ${prefix}${r.path}`).sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(documented).toEqual(served);
  });

  it('lists every answer a route gives, with a body of the listed schema', async () => {
    const answers: Answer[] = [];
    const a = async (p: Promise<Answer>) => {
      const r = await p;
      answers.push(r);
      return r;
    };
    const token = (
      (
        await a(
          send(sb, 'POST', '/auth/merchant/token/generate', {
            body: { merchant_key: demoMerchant.merchantKey },
          }),
        )
      ).body as { data: { token: string } }
    ).data.token;
    const deposit = async () => {
      const r = await a(send(sb, 'POST', '/payments/initiate', { body: customer(), token }));
      const data = (
        r.body as { data: { has_token: string; gateway_configuration: { gateway: { id: number } }[] } }
      ).data;
      return { hash_token: data.has_token, gateway_id: data.gateway_configuration[0]!.gateway.id };
    };
    const phone = { phone_number: '+233201234567' };

    // Successes, and each step on a transaction no longer initiated.
    await a(send(sb, 'GET', '/public/currencies'));
    await a(send(sb, 'GET', '/public/countries'));
    await a(send(sb, 'GET', '/merchant/currencies', { token }));
    await a(send(sb, 'GET', '/public/merchant/currencies', { token }));
    const d1 = await deposit();
    await a(send(sb, 'POST', '/payments/crypto/wallet/address/update', { body: d1, token }));
    await a(send(sb, 'POST', '/payments/status/update', { body: { ...d1, status: 'initiated' }, token }));
    await a(send(sb, 'POST', '/payments/processed', { body: { ...d1, ...phone }, token }));
    await a(send(sb, 'POST', '/payments/processed', { body: { ...d1, ...phone }, token }));
    await a(send(sb, 'POST', '/payments/status/update', { body: { ...d1, status: 'failed' }, token }));
    await a(send(sb, 'POST', '/payments/crypto/wallet/address/update', { body: d1, token }));
    const d2 = await deposit();
    await a(send(sb, 'POST', '/payments/status/update', { body: { ...d2, status: 'bogus' }, token }));
    const w = await a(send(sb, 'POST', '/payments/withdraw/initiate', { body: customer(), token }));
    const wHash = (w.body as { data: { has_token: string } }).data.has_token;
    const wp = { hash_token: wHash, ...phone, customer_email: 'ama@example.com' };
    await a(send(sb, 'POST', '/payments/withdraw/processed', { body: wp, token }));
    await a(send(sb, 'POST', '/payments/withdraw/processed', { body: { ...wp, otp: '000000' }, token }));
    await a(
      send(sb, 'POST', '/payments/withdraw/processed', { body: { ...wp, otp: demoMerchant.otp }, token }),
    );
    await a(
      send(sb, 'POST', '/payments/withdraw/processed', { body: { ...wp, otp: demoMerchant.otp }, token }),
    );
    // Refusals of the initiate's own: wrong credentials, an unknown currency, an amount out of bounds.
    await a(send(sb, 'POST', '/payments/withdraw/initiate', { body: customer({ api_key: 'wrong' }), token }));
    await a(
      send(sb, 'POST', '/payments/withdraw/initiate', { body: customer({ currency_code: 'XXX' }), token }),
    );
    await a(send(sb, 'POST', '/payments/initiate', { body: customer({ currency_code: 'XXX' }), token }));
    await a(send(sb, 'POST', '/payments/initiate', { body: customer({ api_key: 'wrong' }), token }));
    await a(send(sb, 'POST', '/auth/merchant/token/generate', { body: { merchant_key: 'nope' } }));

    // On every route: no token, a wrong token, an empty body, a body that is not JSON, a server fault, and
    // (on a sandbox allowing one request a minute) the rate limit.
    await a(send(limited, 'GET', '/public/countries'));
    for (const r of apiRoutes) {
      const m = r.method;
      if (r.bearer) {
        await a(send(sb, m, r.path));
        await a(send(sb, m, r.path, { token: 'not-a-token' }));
      }
      if (m === 'POST') {
        await a(send(sb, m, r.path, { token, body: {} }));
        await a(send(sb, m, r.path, { token, raw: '{"cut": ' }));
      }
      await a(send(sb, m, r.path, { token, headers: { 'x-mpay-sandbox-fault': '500' } }));
      await a(send(limited, m, r.path, { token, body: {} }));
    }

    const statuses = new Set(answers.map((x) => x.status));
    // The scenario reaches each kind of answer (a check of the test itself).
    expect([...statuses].sort()).toEqual([200, 401, 403, 404, 412, 422, 429, 500]);
    const wrong: string[] = [];
    for (const { route, status, body } of answers) {
      const [method, path] = route.split(' ') as [string, string];
      const response = doc.paths[`${prefix}${path}`]?.[method.toLowerCase()]?.responses[String(status)];
      if (!response) {
        wrong.push(`${route} answered ${status}, which the document does not list`);
        continue;
      }
      const schema = response.content?.['application/json']?.schema;
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"mpay-doc#/components/')),
      );
      if (!validate(body))
        wrong.push(
          `${route} ${status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 200)}`,
        );
    }
    expect(wrong).toEqual([]);
  });
});
