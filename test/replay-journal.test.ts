// What `mpay replay` journals of each money call it sends (flows/replay/replay.ts), as the command's own flow
// journals it: the initiate under its new reference with what it asks for and the reference it replays,
// the status update with its gateway and requested status, the code sent and the withdrawal processed with
// the phone number, each answer under the new hash token. And the credentials a trace needs, refused before
// anything is sent when this run has none: a merchant key for a token, a site id and an API key for an
// initiate; a trace that needs none runs without.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  cliEnv,
  customerArgs,
  file,
  harEntry,
  harOf,
  journalEvents,
  requestCounts,
  sandbox,
  tempDir,
  mergedHar,
} from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let a: Sb; // where the trace is recorded
let b: Sb; // where it is replayed
let withdrawTrace: string;
let currenciesTrace: string;
beforeAll(async () => {
  [a, b] = await Promise.all([sandbox(), sandbox()]);
  const dir = tempDir();
  withdrawTrace = join(dir, 'withdraw.har');
  currenciesTrace = join(dir, 'currencies.har');
  const env = cliEnv(a, tempDir());
  const w = await mpay(
    [
      'withdraw',
      ...customerArgs({
        country: '',
        amount: '20',
        'first-name': 'Kofi',
        phone: '+233209876540',
        email: 'kofi@example.com',
      }),
      '--otp',
      demoMerchant.otp,
      '--trace',
      withdrawTrace,
      '--json',
    ],
    { env },
  );
  expect(w.code, w.stderr).toBe(0);
  const c = await mpay(['currencies', '--trace', currenciesTrace], { env });
  expect(c.code, c.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

it("each money call of a replayed withdrawal is journaled as the flow's step, under the new transaction", async () => {
  const cfg = tempDir();
  const r = await mpay(['replay', withdrawTrace, '--otp', demoMerchant.otp, '--json'], {
    env: cliEnv(b, cfg),
  });
  expect(r.code, r.stderr).toBe(0);
  const calls = r.json() as { reference?: string; recorded_reference?: string; hash_token?: string }[];
  const initiate = calls.find((c) => c.reference)!;
  const { reference, hash_token: hash } = initiate;
  expect(reference).toMatch(/^mpay-w-/);
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  const events = journalEvents(cfg).map(({ at: _at, place, ...e }) => {
    expect(place).toMatchObject({ server: b.url, env: 'sandbox' });
    return e;
  });
  // b is no profile's sandbox: the customer neutral, as the report said
  expect(events).toEqual([
    {
      reference,
      kind: 'withdraw',
      step: 'initiate',
      outcome: 'sent',
      data: {
        amount: '20',
        currency: 'GHS',
        country: 'GH',
        customer: { first_name: 'Test', phone: '+233200000000', email: 'customer@example.com' },
        replay_of: initiate.recorded_reference,
      },
    },
    {
      reference,
      kind: 'withdraw',
      step: 'initiate',
      outcome: 'ok',
      hash_token: hash,
      data: { status: 'initiated' },
    },
    {
      reference,
      kind: 'withdraw',
      step: 'status',
      outcome: 'sent',
      hash_token: hash,
      data: { gateway_id: '1', requested_status: 'initiated' },
    },
    {
      reference,
      kind: 'withdraw',
      step: 'status',
      outcome: 'ok',
      hash_token: hash,
      data: { status: 'initiated' },
    },
    {
      reference,
      kind: 'withdraw',
      step: 'otp',
      outcome: 'sent',
      hash_token: hash,
      data: { phone_number: '+233200000000' },
    },
    { reference, kind: 'withdraw', step: 'otp', outcome: 'ok', hash_token: hash, data: {} },
    {
      reference,
      kind: 'withdraw',
      step: 'processed',
      outcome: 'sent',
      hash_token: hash,
      data: { phone_number: '+233200000000', with_otp: true },
    },
    {
      reference,
      kind: 'withdraw',
      step: 'processed',
      outcome: 'ok',
      hash_token: hash,
      data: { status: 'pending' },
    },
  ]);
  expect(initiate.recorded_reference).toMatch(/^mpay-w-/);
  expect(initiate.recorded_reference).not.toBe(reference);
  // the history shows the replayed withdrawal as the flow's: pending
  const h = await mpay(['history', 'show', reference!, '--json'], { env: cliEnv(b, cfg) });
  expect(h.json()).toMatchObject({ reference, hash_token: hash, status: 'pending', kind: 'withdraw' });
});

describe('the credentials a trace needs, refused before anything is sent', () => {
  const refused = async (
    trace: string,
    missing: Record<string, undefined>,
    message: string,
    hint: string,
  ) => {
    const before = await requestCounts(b);
    const r = await mpay(['replay', trace, '--otp', demoMerchant.otp, '--json'], {
      env: cliEnv(b, tempDir(), missing),
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.json().error).toMatchObject({ message, hint });
    expect(await requestCounts(b)).toEqual(before);
  };

  it('no merchant key: no token to replay with', () =>
    refused(
      withdrawTrace,
      { MPAY_MERCHANT_KEY: undefined },
      'No merchant key to replay with',
      'Run `mpay login`, or set MPAY_MERCHANT_KEY',
    ));

  it('no site id, or no API key: no initiate', async () => {
    for (const missing of [{ MPAY_SITE_ID: undefined }, { MPAY_API_KEY: undefined }])
      await refused(
        withdrawTrace,
        missing,
        'Missing credentials to replay the initiates: site id and API key',
        'Run `mpay login`, or set MPAY_SITE_ID and MPAY_API_KEY',
      );
  });

  it('an initiate that carries only one of them needs both', async () => {
    for (const [field, missing] of [
      ['site_id', { MPAY_API_KEY: undefined }],
      ['api_key', { MPAY_SITE_ID: undefined }],
    ] as const)
      await refused(
        file(`only-${field}.har`, harOf([harEntry('payments/initiate', { [field]: '1', amount: '10' })])),
        missing,
        'Missing credentials to replay the initiates: site id and API key',
        'Run `mpay login`, or set MPAY_SITE_ID and MPAY_API_KEY',
      );
  });

  it('a public read beside a token call: a merchant key all the same', async () => {
    const mixed = mergedHar(
      'mixed.har',
      [currenciesTrace, withdrawTrace],
      (url) => url.endsWith('/public/currencies') || url.endsWith('/token/generate'),
    );
    await refused(
      mixed,
      { MPAY_MERCHANT_KEY: undefined },
      'No merchant key to replay with',
      'Run `mpay login`, or set MPAY_MERCHANT_KEY',
    );
  });

  it("a trace of the merchant's reads, no initiate: no site id or API key needed", async () => {
    const reads = mergedHar('reads.har', [withdrawTrace], (url) => !url.includes('/payments/'));
    const r = await mpay(['replay', reads, '--json'], {
      env: cliEnv(b, tempDir(), { MPAY_SITE_ID: undefined, MPAY_API_KEY: undefined }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().map((c: { path: string }) => c.path)).toEqual([
      '/auth/merchant/token/generate',
      '/merchant/currencies',
    ]);
  });

  it('a trace of public reads needs none', async () => {
    const r = await mpay(['replay', currenciesTrace, '--json'], {
      env: cliEnv(b, tempDir(), {
        MPAY_MERCHANT_KEY: undefined,
        MPAY_SITE_ID: undefined,
        MPAY_API_KEY: undefined,
      }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject([{ path: '/public/currencies', same: true }]);
  });
});
