// The sandbox against the spec, over real HTTP: every endpoint, every row of the Errors and States
// tables, with the encodings the spec names (form-data for token, status and wallet; JSON elsewhere).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import * as z from 'zod/mini';
import * as s from '../src/api/schemas.js';
import { envelope } from '../src/api/schemas.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { sandbox, tempDir, waitUntil } from './helpers.js';

type Enc = 'json' | 'form' | 'urlencoded';
type Sb = Awaited<ReturnType<typeof sandbox>>;

function api(sb: Sb) {
  const base = `${sb.url}/restapi/v1`;
  const request = async (
    method: string,
    path: string,
    opts: {
      body?: Record<string, unknown>;
      enc?: Enc;
      token?: string;
      headers?: Record<string, string>;
    } = {},
  ) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: BodyInit | undefined;
    if (opts.body) {
      if (opts.enc === 'form') {
        const fd = new FormData();
        for (const [k, v] of Object.entries(opts.body)) fd.set(k, String(v));
        body = fd;
      } else if (opts.enc === 'urlencoded') {
        body = new URLSearchParams(Object.entries(opts.body).map(([k, v]) => [k, String(v)]));
      } else {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.body);
      }
    }
    const res = await fetch(`${base}/${path}`, { method, headers, body });
    const text = await res.text();
    let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text, headers: res.headers };
  };
  return {
    request,
    async token(): Promise<string> {
      const r = await request('POST', 'auth/merchant/token/generate', {
        body: { merchant_key: demoMerchant.merchantKey },
        enc: 'form',
      });
      return r.json.data.token;
    },
  };
}

let ref = 0;
const customer = (over: Record<string, unknown> = {}) => ({
  merchant_key: demoMerchant.merchantKey,
  site_id: 1,
  api_key: demoMerchant.apiKey,
  currency_code: 'GHS',
  country_code: 'GH',
  customer_first_name: 'Ama',
  customer_last_name: 'Mensah',
  customer_phone: '+233201234567',
  customer_email: 'ama@example.com',
  customer_transaction_id: `conf-${Date.now()}-${++ref}`,
  amount: '25.00',
  ...over,
});

describe('sandbox conformance', () => {
  let sb: Sb;
  let a: ReturnType<typeof api>;
  let token: string;
  beforeAll(async () => {
    sb = await sandbox();
    a = api(sb);
    token = await a.token();
  });
  afterAll(() => sb.close());

  const initiate = async (kind: 'deposit' | 'withdraw', over: Record<string, unknown> = {}) => {
    const r = await a.request(
      'POST',
      kind === 'deposit' ? 'payments/initiate' : 'payments/withdraw/initiate',
      { body: customer(over), token },
    );
    expect(r.status).toBe(200);
    return envelope(s.InitiatedPayment).parse(r.json).data;
  };

  describe('public lists', () => {
    it('GET /public/currencies answers an envelope of Currency records', async () => {
      const r = await a.request('GET', 'public/currencies');
      expect(r.status).toBe(200);
      const data = envelope(z.array(s.Currency)).parse(r.json).data;
      expect(data.length).toBeGreaterThanOrEqual(5);
      expect(new Set(data.map((c) => c.country?.code)).size).toBeGreaterThanOrEqual(4);
      expect(r.json.data[0]).toHaveProperty('minimum_deposite');
    });
    it('GET /public/countries answers Country records', async () => {
      const r = await a.request('GET', 'public/countries');
      const data = envelope(z.array(s.Country)).parse(r.json).data;
      expect(data.map((c) => c.code)).toContain('GH');
      expect(data[0]).toHaveProperty('dial_code');
    });
    it('a failing public list answers {success:false, message, error_code:500}', async () => {
      for (const path of ['public/countries', 'public/currencies']) {
        const r = await a.request('GET', path, { headers: { 'x-mpay-sandbox-fault': '500' } });
        expect(r.status).toBe(500);
        expect(s.FailurePublic.parse(r.json).error_code).toBe(500);
      }
    });
  });

  describe('token generate', () => {
    it('issues a token from a form-data merchant_key', async () => {
      const r = await a.request('POST', 'auth/merchant/token/generate', {
        body: { merchant_key: demoMerchant.merchantKey },
        enc: 'form',
      });
      expect(r.status).toBe(200);
      expect(envelope(s.TokenData).parse(r.json).data.token).toMatch(/^[0-9a-f]{48}$/);
    });
    it('rejects a wrong key with shape B on merchant_key', async () => {
      const r = await a.request('POST', 'auth/merchant/token/generate', {
        body: { merchant_key: 'nope' },
        enc: 'form',
      });
      expect(r.status).toBe(422);
      expect(s.FailureB.parse(r.json).errors?.merchant_key?.[0]).toMatch(/invalid/);
    });
    it('requires merchant_key', async () => {
      const r = await a.request('POST', 'auth/merchant/token/generate', { body: {}, enc: 'form' });
      expect(r.json.errors.merchant_key[0]).toBe('The merchant key field is required.');
    });
  });

  describe('401 UnAuthenticated User', () => {
    for (const [method, path] of [
      ['GET', 'merchant/currencies'],
      ['POST', 'payments/initiate'],
      ['POST', 'payments/withdraw/initiate'],
      ['POST', 'payments/processed'],
      ['POST', 'payments/status/update'],
      ['POST', 'payments/crypto/wallet/address/update'],
      ['POST', 'payments/withdraw/processed'],
    ] as const) {
      it(`${method} ${path} without a valid bearer`, async () => {
        for (const t of [undefined, 'not-a-token']) {
          const r = await a.request(method, path, { token: t, body: method === 'POST' ? {} : undefined });
          expect(r.status).toBe(401);
          expect(r.json).toEqual({ status: false, message: 'UnAuthenticated User' });
        }
      });
    }
    it('authentication comes first: a body that is not JSON is a 401 without a valid bearer, a 422 with one', async () => {
      const bad = { 'content-type': 'application/json' };
      for (const path of ['payments/initiate', 'payments/status/update', 'payments/withdraw/processed']) {
        for (const t of [undefined, 'not-a-token']) {
          const headers: Record<string, string> = { ...bad, ...(t && { authorization: `Bearer ${t}` }) };
          const r = await fetch(`${sb.url}/restapi/v1/${path}`, {
            method: 'POST',
            headers,
            body: '{"amount":',
          });
          expect(r.status, `${path} ${t}`).toBe(401);
          expect(await r.json()).toEqual({ status: false, message: 'UnAuthenticated User' });
        }
        const r = await fetch(`${sb.url}/restapi/v1/${path}`, {
          method: 'POST',
          headers: { ...bad, authorization: `Bearer ${token}` },
          body: '{"amount":',
        });
        expect(r.status, path).toBe(422);
        expect(await r.json()).toMatchObject({ status: false, message: 'Validation failed.' });
      }
    });
  });

  it("an unknown route answers 404 as the API's framework does, not in shape A (whose 404 is a transaction's state)", async () => {
    for (const path of ['/restapi/v1/payments/nowhere', '/restapi/v2/public/countries', '/nowhere']) {
      for (const method of ['GET', 'POST']) {
        const r = await fetch(`${sb.url}${path}`, { method });
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(await r.json()).toEqual({ message: `The route ${path.slice(1)} could not be found.` });
      }
    }
  });

  describe('merchant currencies', () => {
    it('lists currencies with balances, limits, service and gateway configurations', async () => {
      const r = await a.request('GET', 'merchant/currencies', { token });
      const data = envelope(z.array(s.MerchantCurrency)).parse(r.json).data;
      const ghs = data.find((c) => c.code === 'GHS')!;
      expect(ghs.total_balance).toBeGreaterThan(0);
      expect(ghs.service?.site_id).toBe('1');
      expect(r.json.data[0]).toHaveProperty('weckly_deposite');
      expect(r.json.data[0].service).toHaveProperty('faild_url');
      expect(r.json.data[0].service).toHaveProperty('desposit_status');
      const types = new Set(data.flatMap((c) => (c.getway_configuration ?? []).map((g) => g.type)));
      expect(types).toEqual(new Set(['collection', 'disbursement']));
      const methods = new Set(
        data.flatMap((c) => (c.getway_configuration ?? []).map((g) => g.gateway.payment_method)),
      );
      for (const m of ['mobile_money', 'card_onramp', 'crypto', 'interbank_etransfer', 'service_wallet'])
        expect(methods).toContain(m);
    });
    it('answers 500 shape A on a server fault', async () => {
      const r = await a.request('GET', 'merchant/currencies', {
        token,
        headers: { 'x-mpay-sandbox-fault': '500' },
      });
      expect(r.status).toBe(500);
      expect(r.json).toEqual({ success: false, message: 'Server Error', errors: [] });
    });
  });

  describe('initiate', () => {
    it('deposit initiate returns an Initiated payment with has_token and collection gateways', async () => {
      const p = await initiate('deposit');
      expect(p.has_token).toMatch(/^[0-9a-f]{64}$/);
      expect(p.amount).toBe('25.00');
      expect(p.gateway_configuration.every((g) => g.type === 'collection')).toBe(true);
    });
    it('withdraw initiate returns disbursement gateways', async () => {
      const p = await initiate('withdraw');
      expect(p.gateway_configuration.every((g) => g.type === 'disbursement')).toBe(true);
    });
    for (const enc of ['json', 'form', 'urlencoded'] as const) {
      it(`accepts a ${enc} body`, async () => {
        const r = await a.request('POST', 'payments/initiate', { body: customer(), enc, token });
        expect(r.status).toBe(200);
      });
    }
    it('422 per missing required field', async () => {
      const r = await a.request('POST', 'payments/initiate', {
        body: { merchant_key: demoMerchant.merchantKey },
        token,
      });
      expect(r.status).toBe(422);
      expect(r.json.message).toBe('Validation failed.');
      for (const f of [
        'site_id',
        'api_key',
        'currency_code',
        'country_code',
        'customer_first_name',
        'customer_phone',
        'customer_email',
        'customer_transaction_id',
        'amount',
      ]) {
        expect(r.json.errors[f], f).toBeDefined();
      }
      expect(r.json.errors.customer_last_name).toBeUndefined();
    });
    it('deposit: invalid merchant key, site id and API key are 422 on the field', async () => {
      const r = await a.request('POST', 'payments/initiate', {
        body: customer({ merchant_key: 'x', site_id: 99, api_key: 'y' }),
        token,
      });
      expect(r.status).toBe(422);
      expect(Object.keys(r.json.errors).sort()).toEqual(['api_key', 'merchant_key', 'site_id']);
    });
    it('withdraw: invalid credentials are 403', async () => {
      for (const over of [{ merchant_key: 'x' }, { site_id: 99 }, { api_key: 'y' }]) {
        const r = await a.request('POST', 'payments/withdraw/initiate', { body: customer(over), token });
        expect(r.status).toBe(403);
        expect(r.json.success).toBe(false);
      }
    });
    it('a duplicate customer_transaction_id is a 422 on that field', async () => {
      const body = customer();
      expect((await a.request('POST', 'payments/initiate', { body, token })).status).toBe(200);
      const r = await a.request('POST', 'payments/withdraw/initiate', { body, token });
      expect(r.status).toBe(422);
      expect(r.json.errors.customer_transaction_id[0]).toMatch(/already been taken/);
    });
    it('an unknown currency: 422 on deposit, 412 "This currency is not exits" on withdraw', async () => {
      const d = await a.request('POST', 'payments/initiate', {
        body: customer({ currency_code: 'ZZZ' }),
        token,
      });
      expect(d.status).toBe(422);
      expect(d.json.errors.currency_code).toBeDefined();
      const w = await a.request('POST', 'payments/withdraw/initiate', {
        body: customer({ currency_code: 'ZZZ' }),
        token,
      });
      expect(w.status).toBe(412);
      expect(w.json).toEqual({ success: false, message: 'This currency is not exits', data: [] });
    });
    it('amount bounds of the merchant currency are a 422 on amount', async () => {
      for (const [kind, amount] of [
        ['payments/initiate', '0.5'],
        ['payments/initiate', '50001'],
        ['payments/withdraw/initiate', '1'],
        ['payments/withdraw/initiate', '20001'],
      ] as const) {
        const r = await a.request('POST', kind, { body: customer({ amount }), token });
        expect(r.status, `${kind} ${amount}`).toBe(422);
        expect(r.json.errors.amount).toBeDefined();
      }
    });
    it('500 shape A on a server fault', async () => {
      for (const path of ['payments/initiate', 'payments/withdraw/initiate']) {
        const r = await a.request('POST', path, {
          body: customer(),
          token,
          headers: { 'x-mpay-sandbox-fault': '500' },
        });
        expect(r.status).toBe(500);
        expect(s.FailureA.parse(r.json).errors).toEqual([]);
      }
    });
    it('concurrent initiates with one reference make exactly one transaction', async () => {
      const body = customer();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => a.request('POST', 'payments/initiate', { body, token })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 422)).toHaveLength(19);
      expect(sb.state.list().filter((t) => t.reference === body.customer_transaction_id)).toHaveLength(1);
    });
  });

  describe('States table', () => {
    it('status update from initiated sets the status and binds the gateway (form-data)', async () => {
      const p = await initiate('deposit');
      const r = await a.request('POST', 'payments/status/update', {
        body: { hash_token: p.has_token, status: 'initiated', gateway_id: 1 },
        enc: 'form',
        token,
      });
      expect(r.status).toBe(200);
      const data = envelope(s.StatusUpdateResult).parse(r.json).data;
      expect(data.status).toBe('initiated');
      expect(data.type).toBe('collection');
      expect(data.transaction_time_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    });
    for (const status of ['pending', 'success', 'failed', 'cancelled'] as const) {
      it(`status update to ${status}, then every step answers 404 "not initiated"`, async () => {
        const p = await initiate('withdraw');
        const r = await a.request('POST', 'payments/status/update', {
          body: { hash_token: p.has_token, status, gateway_id: 1 },
          enc: 'form',
          token,
        });
        expect(r.json.data.status).toBe(status);
        const steps = [
          a.request('POST', 'payments/status/update', {
            body: { hash_token: p.has_token, status: 'initiated', gateway_id: 1 },
            enc: 'form',
            token,
          }),
          a.request('POST', 'payments/crypto/wallet/address/update', {
            body: { hash_token: p.has_token, gateway_id: 2 },
            enc: 'form',
            token,
          }),
          a.request('POST', 'payments/withdraw/processed', {
            body: {
              hash_token: p.has_token,
              phone_number: '+233201234567',
              customer_email: 'ama@example.com',
            },
            token,
          }),
        ];
        for (const res of await Promise.all(steps)) {
          expect(res.status).toBe(404);
          expect(res.json).toEqual({
            success: false,
            message: 'Transaction status is not initiated.',
            errors: [],
          });
        }
      });
    }
    it('deposit processed from a non-initiated transaction is 404', async () => {
      const p = await initiate('deposit');
      await a.request('POST', 'payments/status/update', {
        body: { hash_token: p.has_token, status: 'failed', gateway_id: 1 },
        enc: 'form',
        token,
      });
      const r = await a.request('POST', 'payments/processed', {
        body: { hash_token: p.has_token, phone_number: '+233201234567' },
        token,
      });
      expect(r.status).toBe(404);
    });
    it("gateway_id outside the transaction's configurations is a 422; a status outside the five values too", async () => {
      const p = await initiate('deposit');
      const gw = await a.request('POST', 'payments/status/update', {
        body: { hash_token: p.has_token, status: 'initiated', gateway_id: 5 },
        enc: 'form',
        token,
      });
      expect(gw.status).toBe(422);
      expect(gw.json.errors.gateway_id).toBeDefined();
      const st = await a.request('POST', 'payments/status/update', {
        body: { hash_token: p.has_token, status: 'done', gateway_id: 1 },
        enc: 'form',
        token,
      });
      expect(st.status).toBe(422);
      expect(st.json.errors.status).toBeDefined();
      const wl = await a.request('POST', 'payments/crypto/wallet/address/update', {
        body: { hash_token: p.has_token, gateway_id: 99 },
        enc: 'form',
        token,
      });
      expect(wl.json.errors.gateway_id).toBeDefined();
    });
    it('an unknown hash token is a 422 on hash_token everywhere', async () => {
      for (const path of [
        'payments/status/update',
        'payments/crypto/wallet/address/update',
        'payments/processed',
        'payments/withdraw/processed',
      ]) {
        const r = await a.request('POST', path, {
          body: {
            hash_token: 'f'.repeat(64),
            status: 'initiated',
            gateway_id: 1,
            phone_number: '1',
            customer_email: 'a@b.co',
          },
          token,
        });
        expect(r.status, path).toBe(422);
        expect(r.json.errors.hash_token, path).toBeDefined();
      }
    });
    it('wallet address update keeps the status, needs initiated, and returns a fresh address', async () => {
      const p = await initiate('deposit', { currency_code: 'USD', country_code: 'US', amount: '100' });
      const first = await a.request('POST', 'payments/crypto/wallet/address/update', {
        body: { hash_token: p.has_token, gateway_id: 5 },
        enc: 'form',
        token,
      });
      const w = envelope(s.WalletAddressUpdateResult).parse(first.json).data;
      expect(w).toMatchObject({
        gateway_id: 5,
        network: 'TRC20',
        code: 'USDT',
        status: 'active',
        currency_code: 'USD',
      });
      expect(w.wallet_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      const second = await a.request('POST', 'payments/crypto/wallet/address/update', {
        body: { hash_token: p.has_token, gateway_id: 5 },
        enc: 'form',
        token,
      });
      expect(second.json.data.wallet_address).not.toBe(w.wallet_address);
      expect(sb.state.list().find((t) => t.hash_token === p.has_token)?.status).toBe('initiated');
    });
    it('deposit processed moves initiated to pending and returns the Transaction; a crypto gateway settles in its coin', async () => {
      const p = await initiate('deposit', { currency_code: 'USD', country_code: 'US', amount: '100' });
      await a.request('POST', 'payments/status/update', {
        body: { hash_token: p.has_token, status: 'initiated', gateway_id: 5 },
        enc: 'form',
        token,
      });
      const r = await a.request('POST', 'payments/processed', {
        body: { hash_token: p.has_token, phone_number: '+15551234567', receiver_email: 'r@example.com' },
        token,
      });
      expect(r.status).toBe(200);
      const t = envelope(s.Transaction).parse(r.json).data;
      expect(t).toMatchObject({
        status: 'pending',
        currency_code: 'USDT',
        amount: 100,
        payment_method: 'crypto',
      });
      expect(t.gateway_config?.gateway.id).toBe(5);
      const again = await a.request('POST', 'payments/processed', {
        body: { hash_token: p.has_token, phone_number: '+15551234567' },
        token,
      });
      expect(again.status).toBe(404);
    });
    it('withdraw processed: code sent, wrong code 422, right code processes and reduces the balance, paid twice 422', async () => {
      const before = sb.state.balance('GHS')!;
      const p = await initiate('withdraw', { amount: '40' });
      const body = {
        hash_token: p.has_token,
        phone_number: '+233201234567',
        customer_email: 'ama@example.com',
      };
      const sent = await a.request('POST', 'payments/withdraw/processed', { body, token });
      expect(sent.status).toBe(200);
      expect(sent.json.data).toEqual([]);
      expect(sent.json.message).toMatch(/sent to the customer email/);
      expect(
        sb.logs.some((l) => l.includes(`one-time code ${demoMerchant.otp} sent to ama@example.com`)),
      ).toBe(true);
      const wrong = await a.request('POST', 'payments/withdraw/processed', {
        body: { ...body, otp: '000000' },
        token,
      });
      expect(wrong.status).toBe(422);
      expect(wrong.json.errors.otp).toBeDefined();
      const done = await a.request('POST', 'payments/withdraw/processed', {
        body: { ...body, otp: demoMerchant.otp },
        token,
      });
      expect(done.status).toBe(200);
      expect(envelope(s.Transaction).parse(done.json).data.status).toBe('pending');
      expect(sb.state.balance('GHS')).toBe(before - 40);
      // The merchant currency list shows the new balance (it is cached only until a balance changes).
      const list = await a.request('GET', 'merchant/currencies', { token });
      expect(list.json.data.find((c: { code: string }) => c.code === 'GHS').total_balance).toBe(before - 40);
      const twice = await a.request('POST', 'payments/withdraw/processed', {
        body: { ...body, otp: demoMerchant.otp },
        token,
      });
      expect(twice.status).toBe(422);
      expect(twice.json.errors.hash_token[0]).toMatch(/already been done/);
    });
    it('withdraw processed needs customer_email and phone_number', async () => {
      const p = await initiate('withdraw');
      const r = await a.request('POST', 'payments/withdraw/processed', {
        body: { hash_token: p.has_token },
        token,
      });
      expect(r.status).toBe(422);
      expect(Object.keys(r.json.errors).sort()).toEqual(['customer_email', 'phone_number']);
    });
    it('withdraw processed answers 500 shape A on a server fault', async () => {
      const r = await a.request('POST', 'payments/withdraw/processed', {
        body: {},
        token,
        headers: { 'x-mpay-sandbox-fault': '500' },
      });
      expect(r.status).toBe(500);
      expect(r.json.errors).toEqual([]);
    });
  });

  describe('faults', () => {
    it('html, malformed, empty and shape answers', async () => {
      const html = await a.request('GET', 'public/countries', {
        headers: { 'x-mpay-sandbox-fault': 'html' },
      });
      expect(html.status).toBe(502);
      expect(html.text).toMatch(/<html>/);
      const bad = await a.request('GET', 'public/countries', {
        headers: { 'x-mpay-sandbox-fault': 'malformed' },
      });
      expect(bad.json).toBeUndefined();
      const empty = await a.request('GET', 'public/countries', {
        headers: { 'x-mpay-sandbox-fault': 'empty' },
      });
      expect(empty.text).toBe('');
      const shape = await a.request('GET', 'public/countries', {
        headers: { 'x-mpay-sandbox-fault': 'shape' },
      });
      expect(shape.json.success).toBeUndefined();
    });
    it('drop closes the connection before acting; drop-after acts, then closes', async () => {
      await expect(
        a.request('GET', 'public/countries', { headers: { 'x-mpay-sandbox-fault': 'drop' } }),
      ).rejects.toThrow();
      const body = customer();
      await expect(
        a.request('POST', 'payments/initiate', {
          body,
          token,
          headers: { 'x-mpay-sandbox-fault': 'drop-after' },
        }),
      ).rejects.toThrow();
      expect(sb.state.list().some((t) => t.reference === body.customer_transaction_id)).toBe(true);
    });
    it('slow holds the answer: a client that gives up first gets nothing, and the server does not act for it', async () => {
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-mpay-sandbox-fault': 'slow',
        'x-mpay-sandbox-delay': '1500',
      };
      const body = customer();
      const gaveUp = fetch(`${sb.url}/restapi/v1/payments/initiate`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(200),
      });
      await expect(gaveUp).rejects.toThrow();
      // the server says so when the delay ends, where it would otherwise have acted
      await waitUntil('the sandbox to see the client gone at the end of the delay', () =>
        sb.logs.some((l) => l.startsWith('client gone during slow POST')),
      );
      expect(sb.state.list().some((t) => t.reference === body.customer_transaction_id)).toBe(false);
      // A client that waits gets the real answer.
      const waited = await a.request('GET', 'public/countries', {
        headers: { 'x-mpay-sandbox-fault': 'slow', 'x-mpay-sandbox-delay': '100' },
      });
      expect(waited.status).toBe(200);
      expect(waited.json.data.length).toBeGreaterThan(0);
    });
    it('a start-up fault rate applies to a share of requests', async () => {
      const faulty = await sandbox({ faults: ['500'], rate: 0.5 });
      try {
        const codes = await Promise.all(
          Array.from({ length: 40 }, () =>
            fetch(`${faulty.url}/restapi/v1/public/countries`).then((r) => r.status),
          ),
        );
        expect(codes.filter((c) => c === 500).length).toBeGreaterThan(5);
        expect(codes.filter((c) => c === 200).length).toBeGreaterThan(5);
      } finally {
        await faulty.close();
      }
    });
  });

  describe('documentation', () => {
    it('serves an OpenAPI 3.1 document generated from the schemas, and a page', async () => {
      const doc = await (await fetch(`${sb.url}/restapi/documentation/openapi.json`)).json();
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toHaveLength(11);
      expect(doc.components.schemas.MerchantCurrency.properties).toHaveProperty('weckly_deposite');
      expect(doc.info.description).toMatch(/Readings of the spec's gaps/);
      const page = await fetch(`${sb.url}/restapi/documentation`);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toMatch(/withdraw\/processed/);
    });
  });
});

describe('sandbox persistence', () => {
  it('--data keeps transactions and tokens across a restart', async () => {
    const file = join(tempDir(), 'state.json');
    const first = await sandbox({ dataFile: file });
    const a1 = api(first);
    const token = await a1.token();
    const body = customer();
    const r = await a1.request('POST', 'payments/initiate', { body, token });
    expect(r.status).toBe(200);
    await first.close();
    const second = await sandbox({ dataFile: file });
    try {
      expect(second.state.size()).toBe(1);
      const a2 = api(second);
      // The token issued before the restart still works, and the reference is still taken.
      const dup = await a2.request('POST', 'payments/initiate', { body, token });
      expect(dup.status).toBe(422);
      expect(dup.json.errors.customer_transaction_id).toBeDefined();
    } finally {
      await second.close();
    }
  });
});
