// What `mpay replay --dry-run` shows of each call before anything is sent (flows/replay/replay-plan.ts), from a
// hand-written trace: the masked personal data of a support bundle stood in for with valid values, the
// run's credentials (a site id as a number when it is one), a token asked for with the run's merchant key,
// an initiate's fresh reference, a hash token named by the call whose answer supplies it, the one-time
// code named, a field called __proto__ kept as a field, and the calls that cannot go: a money call whose
// hash token no earlier initiate of the trace answered with. The strict sandbox fails on any request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readHar } from '../src/api/har-read.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, file, harEntry, harOf, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { strictSandbox, type StrictSandbox } from './strict.js';

let sb: StrictSandbox;
beforeEach(async () => {
  sb = await strictSandbox();
});
afterEach(async () => {
  sb.verify();
  await sb.close();
});

interface Planned {
  index: number;
  method: string;
  path: string;
  url: string;
  body?: Record<string, unknown>;
  skipped?: string;
}
const dryRun = async (har: string, args: string[] = [], extra: Record<string, string> = {}) => {
  const r = await mpay(['replay', har, '--dry-run', '--json', ...args], {
    env: cliEnv(sb, tempDir(), extra),
  });
  expect(r.code, r.stderr).toBe(0);
  return r.json() as Planned[];
};
const answer = (data: unknown) => ({ text: JSON.stringify({ success: true, message: 'ok', data }) });
const initiate = (body: Record<string, unknown>, hash?: string) =>
  harEntry(
    'payments/initiate',
    {
      site_id: '42',
      api_key: 'recorded-api-key',
      currency_code: 'GHS',
      country_code: 'GH',
      amount: '10',
      customer_transaction_id: 'recorded-ref-1',
      ...body,
    },
    answer(hash ? { has_token: hash } : {}),
  );
const status = (hash: unknown) =>
  harEntry('payments/status/update', { hash_token: hash, status: 'initiated', gateway_id: 1 }, answer({}));
const skippedElsewhere =
  'not sent: its hash token comes from no initiate of this trace (the transaction was started elsewhere)';

it("masked personal data stood in for with valid values, kept as the trace's with --keep-customer", async () => {
  const har = file(
    'masked.har',
    harOf([
      initiate({
        customer_first_name: 'K•••',
        customer_last_name: 'Mensah',
        customer_email: 'k•••@mail.example.org',
        customer_phone: '•••••••567',
      }),
      initiate({ customer_email: '•••', customer_phone: '+44•••12' }),
    ]),
  );
  const [first, second] = await dryRun(har, ['--keep-customer', '--yes']);
  expect(first!.body).toMatchObject({
    customer_first_name: 'Kxxx',
    customer_last_name: 'Mensah',
    customer_email: 'replay@mail.example.org',
    customer_phone: '+15550000567',
  });
  expect(second!.body).toMatchObject({
    customer_email: 'replay@example.com',
    customer_phone: '+15550004412',
  });
  // without --keep-customer, on a server that is no sandbox of a profile: neutral values
  const [neutral] = await dryRun(har);
  expect(neutral!.body).toMatchObject({
    customer_first_name: 'Test',
    customer_last_name: 'Customer',
    customer_email: 'customer@example.com',
  });
});

it("the run's credentials and server; a token asked for with the run's merchant key; a fresh reference", async () => {
  const har = file(
    'creds.har',
    harOf([
      harEntry('auth/merchant/token/generate', {}, answer({ token: 'recorded-token' })),
      initiate({ ['__proto__']: 'a field' }, 'H-initiated-1'),
    ]),
  );
  const [token, init] = await dryRun(har, [], { MPAY_BASE_URL: `${sb.url}//`, MPAY_SITE_ID: 'site-7' });
  expect(token).toEqual({
    index: 1,
    method: 'POST',
    path: '/auth/merchant/token/generate',
    url: `${sb.url}/restapi/v1/auth/merchant/token/generate`,
    body: { merchant_key: '***' },
  });
  expect(init!.url).toBe(`${sb.url}/restapi/v1/payments/initiate`);
  // a site id that is not a number goes as the string it is; the API key the run's, masked as a secret
  expect(init!.body).toMatchObject({
    site_id: 'site-7',
    api_key: '***',
    customer_transaction_id: '<a new reference>',
  });
  expect(Object.keys(init!.body!)).toContain('__proto__');
  expect(init!.body!['__proto__']).toBe('a field');
  // the run's merchant key goes to the token only: an initiate is sent with the site id and API key
  expect(Object.keys(init!.body!).sort()).toEqual(
    [
      '__proto__',
      'amount',
      'api_key',
      'country_code',
      'currency_code',
      'customer_transaction_id',
      'site_id',
    ].sort(),
  );
  const [, numeric] = await dryRun(har);
  expect(numeric!.body!.site_id).toBe(Number(demoMerchant.siteId));
  for (const [id, sent] of [
    ['1234', 1234],
    ['12a', '12a'],
  ] as const)
    expect((await dryRun(har, [], { MPAY_SITE_ID: id }))[1]!.body!.site_id, id).toBe(sent);
});

it('a hash token named by the call whose answer supplies it; the code named; a hash from elsewhere not sent', async () => {
  const har = file(
    'hashes.har',
    harOf([
      status('H-later-3'), // its initiate comes after it
      initiate({}, 'H-first-2'),
      initiate({}, 'H-later-3'),
      status('H-first-2'),
      status('H-later-3'),
      harEntry('payments/withdraw/processed', { hash_token: 'H-first-2', otp: '123456' }, answer([])),
      status('H-nowhere'),
      status(7),
      harEntry('payments/status/update', { hash_token: null, status: 'initiated' }, answer({})),
      // an answer that is not an initiate's makes no transaction, whatever it holds
      harEntry(
        'payments/status/update',
        { hash_token: 'H-first-2', status: 'initiated' },
        answer({ has_token: 'H-status-10' }),
      ),
      status('H-status-10'),
    ]),
  );
  const plan = await dryRun(har, ['--otp', '123456']);
  expect(plan.map((p) => p.skipped ?? p.body?.hash_token)).toEqual([
    skippedElsewhere,
    undefined,
    undefined,
    '<the hash token of call 2>',
    '<the hash token of call 3>',
    '<the hash token of call 2>',
    skippedElsewhere,
    skippedElsewhere,
    'not sent: a money call that names no transaction (no hash token)',
    '<the hash token of call 2>',
    skippedElsewhere,
  ]);
  // the code's placeholder is under a secret's name: the scrubber masks it as it would the code
  expect(plan[5]!.body).toEqual({ hash_token: '<the hash token of call 2>', otp: '***' });
  // a skipped call still shows its body as the trace has it
  expect(plan[6]!.body!.hash_token).toBe('H-nowhere');
  expect(plan.map((p) => p.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
});

it("the replay fills a hash token's placeholder from call 10 on, and sends a value that only holds such a text as it is", async () => {
  sb.allowReads();
  sb.expect('POST /payments/initiate');
  sb.expect('POST /payments/status/update');
  const read = harEntry('public/currencies', {}, answer([]));
  (read.request as { method: string }).method = 'GET';
  const marked = '<the hash token of call 10>';
  const har = file(
    'ten.har',
    harOf([
      ...Array.from({ length: 9 }, () => read),
      initiate(
        {
          merchant_key: 'recorded-merchant-key',
          customer_first_name: 'Ama',
          customer_last_name: 'Mensah',
          customer_email: 'ama@example.com',
          customer_phone: '+233201234567',
        },
        'H-ten',
      ),
      harEntry(
        'payments/status/update',
        {
          hash_token: 'H-ten',
          status: 'initiated',
          gateway_id: 1,
          note: `see ${marked}`,
          memo: `${marked} ok`,
        },
        answer({ status: 'initiated' }),
      ),
    ]),
  );
  const sent = join(tempDir(), 'sent.har');
  const r = await mpay(['replay', har, '--json', '--trace', sent], { env: cliEnv(sb, tempDir()) });
  const calls = r.json() as { path: string; hash_token?: string; replayed: { status: number } | null }[];
  const hash = calls[9]!.hash_token;
  expect(hash, r.stderr).toMatch(/^[0-9a-f]{64}$/);
  const update = readHar(readFileSync(sent, 'utf8')).calls.find((c) => c.path === 'payments/status/update')!;
  expect(update.body).toMatchObject({ hash_token: hash, note: `see ${marked}`, memo: `${marked} ok` });
  expect(calls[10]!.replayed!.status).toBe(200);
});

it('an initiate whose recorded answer is not JSON, or whose data is no object, made no transaction: its calls are not sent', async () => {
  const made = (text: string, hash: string) => [
    harEntry('payments/initiate', { site_id: '42', api_key: 'k', customer_transaction_id: 'r' }, { text }),
    status(hash),
  ];
  const har = file(
    'no-data.har',
    harOf([
      ...made('<html>502 Bad Gateway</html>', 'H-html'),
      ...made('', 'H-empty'),
      ...made('null', 'H-null'),
      ...made(JSON.stringify({ success: true, data: ['H-array'] }), 'H-array'),
      ...made(JSON.stringify({ success: true, data: 'H-string' }), 'H-string'),
      ...made(JSON.stringify({ success: true, has_token: 'H-top' }), 'H-top'),
      ...made(JSON.stringify({ success: false, data: null }), 'H-data-null'),
      // the one that made a transaction
      ...made(JSON.stringify({ success: true, data: { has_token: 'H-made' } }), 'H-made'),
    ]),
  );
  const plan = await dryRun(har);
  expect(plan.map((p) => p.skipped ?? p.body?.hash_token ?? p.path)).toEqual([
    ...Array.from({ length: 7 }, () => ['/payments/initiate', skippedElsewhere]).flat(),
    '/payments/initiate',
    '<the hash token of call 15>',
  ]);
});
