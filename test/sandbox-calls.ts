// Calls to a sandbox over real HTTP for the tests of its data file (sandbox-data, sandbox-snapshot): a
// token, initiates with references of their own, the merchant's GHS balance, and a fill that leaves
// transactions in every state.
import { expect } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';

type Sb = { url: string };
let refs = 0;

export async function call(sb: Sb, path: string, body?: Record<string, unknown>, token?: string) {
  const res = await fetch(`${sb.url}/restapi/v1/${path}`, {
    method: body ? 'POST' : 'GET',
    headers: {
      ...(body && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: body && JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}
export const tokenOf = async (sb: Sb) =>
  (await call(sb, 'auth/merchant/token/generate', { merchant_key: demoMerchant.merchantKey })).json.data
    .token as string;
export const initiate = async (sb: Sb, token: string, kind: 'deposit' | 'withdraw', extra = {}) => {
  const r = await call(
    sb,
    kind === 'deposit' ? 'payments/initiate' : 'payments/withdraw/initiate',
    {
      merchant_key: demoMerchant.merchantKey,
      site_id: 1,
      api_key: demoMerchant.apiKey,
      currency_code: 'GHS',
      country_code: 'GH',
      customer_first_name: 'Ama',
      customer_phone: '+233201234567',
      customer_email: 'ama@example.com',
      customer_transaction_id: `data-${++refs}`,
      amount: '12.50',
      ...extra,
    },
    token,
  );
  expect(r.status).toBe(200);
  return {
    hash: r.json.data.has_token as string,
    gateway: r.json.data.gateway_configuration[0].gateway.id as number,
  };
};
export const merchantGhs = async (sb: Sb, token: string) =>
  (await call(sb, 'merchant/currencies', undefined, token)).json.data.find(
    (c: { code: string }) => c.code === 'GHS',
  ).total_balance as number;

/** A sandbox holding transactions in every state, tokens revoked and issued, and a balance changed. */
export async function fill(sb: Sb) {
  const old = await tokenOf(sb);
  const t = old;
  const d1 = await initiate(sb, t, 'deposit', { customer_last_name: 'Mensah' });
  const d2 = await initiate(sb, t, 'deposit');
  expect(
    (
      await call(
        sb,
        'payments/crypto/wallet/address/update',
        { hash_token: d2.hash, gateway_id: d2.gateway },
        t,
      )
    ).status,
  ).toBe(200);
  expect(
    (
      await call(
        sb,
        'payments/status/update',
        { hash_token: d2.hash, status: 'failed', gateway_id: d2.gateway },
        t,
      )
    ).status,
  ).toBe(200);
  const d3 = await initiate(sb, t, 'deposit');
  expect(
    (await call(sb, 'payments/processed', { hash_token: d3.hash, phone_number: '+233201234567' }, t)).status,
  ).toBe(200);
  const d4 = await initiate(sb, t, 'deposit');
  expect(
    (
      await call(
        sb,
        'payments/crypto/wallet/address/update',
        { hash_token: d4.hash, gateway_id: d4.gateway },
        t,
      )
    ).status,
  ).toBe(200);
  const w1 = await initiate(sb, t, 'withdraw');
  const wp = { hash_token: w1.hash, phone_number: '+233201234567', customer_email: 'ama@example.com' };
  expect((await call(sb, 'payments/withdraw/processed', wp, t)).status).toBe(200);
  expect((await call(sb, 'payments/withdraw/processed', { ...wp, otp: demoMerchant.otp }, t)).status).toBe(
    200,
  );
  const w2 = await initiate(sb, t, 'withdraw');
  expect((await call(sb, 'payments/withdraw/processed', { ...wp, hash_token: w2.hash }, t)).status).toBe(200);
  expect((await fetch(`${sb.url}/_sandbox/revoke-tokens`, { method: 'POST' })).status).toBe(200);
  const fresh = await tokenOf(sb);
  return { old, fresh, d1 };
}
