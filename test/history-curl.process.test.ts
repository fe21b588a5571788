// `mpay history show REF --curl` builds each request from the endpoint table's description of it (its
// request schema's fields, from where the journal keeps them), as the client does: the printed script,
// run literally by bash, reaches the sandbox, and each body it sends equals the body the client sent for
// the same step, as the run's own --trace recorded it. A customer name holding a quote, $(…) and a
// backtick goes through as text. A recording proxy of the test's own stands in front of the sandbox (which
// keeps no bodies): it forwards every request there, and records the script's.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { endpointAt } from '../src/api/endpoints.js';
import { readHar, type RecordedCall } from '../src/api/har-read.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
let proxyUrl = '';
/** the requests the script sent through the proxy: route, content type, body */
let seen: { route: string; contentType: string; body: Buffer; answer: string }[] = [];
const proxy = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
    ) as Record<string, string>;
    void fetch(`${sb.url}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === 'GET' ? undefined : body,
    }).then(async (r) => {
      const answer = await r.text();
      seen.push({
        route: `${req.method} ${req.url}`,
        contentType: req.headers['content-type'] ?? '',
        body,
        answer,
      });
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
});

beforeAll(async () => {
  sb = await sandbox();
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await sb.close();
});

/** A body the script sent, as its fields: JSON parsed, multipart read with the platform's own reader. */
async function fieldsOf(e: (typeof seen)[number]): Promise<Record<string, unknown>> {
  if (e.contentType.startsWith('multipart/form-data')) {
    const form = await new Response(new Uint8Array(e.body), {
      headers: { 'content-type': e.contentType },
    }).formData();
    return Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
  }
  return JSON.parse(e.body.toString('utf8')) as Record<string, unknown>;
}

const hostileName = "O'Brien $(touch pwned) `touch pwned2`";
// what the flows' own checks take: a quote in a name; $, backticks and quotes in an e-mail's local part
const hostileEmail = "a'b`touch${IFS}pwned`!!$HASH${MPAY_API_KEY}$MPAY_REF@x.invalid";

/** Runs a printed script literally with bash, in an empty folder, its variables set as its header says. */
async function bash(script: string, env: ReturnType<typeof cliEnv>, ref: string): Promise<void> {
  const exported = await mpay(['token', '--export'], { env });
  expect(exported.code, exported.stderr).toBe(0);
  seen = [];
  const cwd = tempDir();
  await promisify(execFile)('bash', ['-c', `${exported.stdout}${script}`], {
    cwd,
    env: {
      PATH: process.env.PATH,
      MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
      MPAY_API_KEY: demoMerchant.apiKey,
      MPAY_OTP: demoMerchant.otp,
      MPAY_REF: ref,
    },
  });
  // nothing of a value ran: no file made
  expect(readdirSync(cwd)).toEqual([]);
}

/** The script `history show REF --curl` prints. */
async function curlScript(ref: string, env: ReturnType<typeof cliEnv>): Promise<string> {
  const shown = await mpay(['history', 'show', ref, '--curl', '--json'], { env });
  expect(shown.code, shown.stderr).toBe(0);
  return (shown.json().commands as string[]).join('\n');
}

/**
 * Each body the script sent equals the client's for the same step (the trace's), but for the run's own
 * values: the secrets (the trace keeps none), the fresh reference and the new transaction's hash token.
 */
async function expectSameBodies(byClient: RecordedCall[], ref: string): Promise<void> {
  const byScript = seen.filter((e) => e.route.startsWith('POST /restapi/v1/payments/'));
  expect(byScript.map((e) => e.route.replace('POST /restapi/v1/', ''))).toEqual(byClient.map((c) => c.path));
  const hash = (JSON.parse(byScript[0]!.answer) as { data: { has_token: string } }).data.has_token;
  for (const [i, c] of byClient.entries()) {
    const ep = endpointAt('POST', c.path)!;
    const sent = await fieldsOf(byScript[i]!);
    const expected: Record<string, unknown> = { ...c.body };
    for (const k of ep.secret) if (k in expected) expected[k] = sent[k];
    if ('customer_transaction_id' in expected) expected.customer_transaction_id = ref;
    if ('hash_token' in expected) expected.hash_token = hash;
    expect(sent, c.path).toEqual(expected);
  }
  expect((await fieldsOf(byScript[0]!)).merchant_key).toBe(demoMerchant.merchantKey);
}

const transactions = async () =>
  (await (await fetch(`${sb.url}/_sandbox/transactions`)).json()) as Array<{
    reference: string;
    status: string;
    paid?: boolean;
    customer: { first_name: string; last_name?: string; email: string };
  }>;

it("a withdrawal's script, run by bash, sends the client's bodies to the sandbox, hostile values included", async () => {
  const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: proxyUrl });
  const trace = join(tempDir(), 'run.har');
  const done = await mpay(
    [
      'withdraw',
      ...customerArgs({
        amount: '20',
        'first-name': "Zoë'",
        'last-name': "O'Brien",
        email: hostileEmail,
        reference: 'curl-table-1',
      }),
      '--otp',
      demoMerchant.otp,
      '--trace',
      trace,
      '--json',
    ],
    { env },
  );
  expect(done.code, done.stderr).toBe(0);
  // what the client sent, step by step: the money calls of the run's trace
  const byClient = readHar(readFileSync(trace, 'utf8')).calls.filter((c) => c.path.startsWith('payments/'));
  expect(byClient.map((c) => c.path)).toEqual([
    'payments/withdraw/initiate',
    'payments/status/update',
    'payments/withdraw/processed',
    'payments/withdraw/processed',
  ]);
  await bash(await curlScript('curl-table-1', env), env, 'curl-table-2');
  await expectSameBodies(byClient, 'curl-table-2');
  const confirmed = seen.filter((e) => e.route.endsWith('/withdraw/processed')).at(-1)!;
  expect((await fieldsOf(confirmed)).otp).toBe(demoMerchant.otp);
  expect((await transactions()).find((t) => t.reference === 'curl-table-2')).toMatchObject({
    status: 'pending',
    paid: true,
    customer: { first_name: "Zoë'", last_name: "O'Brien", email: hostileEmail },
  });
});

it("an initiate sent by mpay api with a name holding ', $(…) and a backtick: its script sends the client's body", async () => {
  const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: proxyUrl });
  const trace = join(tempDir(), 'api.har');
  const fields = {
    currency_code: 'GHS',
    country_code: 'GH',
    customer_first_name: hostileName,
    customer_last_name: "d'Arc `id`",
    customer_phone: '+233201234567',
    customer_email: hostileEmail,
    customer_transaction_id: 'curl-table-3',
    amount: '20',
  };
  const sent = await mpay(
    [
      'api',
      'POST',
      '/payments/withdraw/initiate',
      '--credentials',
      ...Object.entries(fields).flatMap(([k, v]) => ['-f', `${k}=${v}`]),
      '--trace',
      trace,
    ],
    { env },
  );
  expect(sent.code, sent.stderr).toBe(0);
  const byClient = readHar(readFileSync(trace, 'utf8')).calls.filter((c) => c.path.startsWith('payments/'));
  expect(byClient[0]!.body!.customer_first_name).toBe(hostileName);
  await bash(await curlScript('curl-table-3', env), env, 'curl-table-4');
  await expectSameBodies(byClient, 'curl-table-4');
  expect((await transactions()).find((t) => t.reference === 'curl-table-4')).toMatchObject({
    status: 'initiated',
    customer: { first_name: hostileName, last_name: "d'Arc `id`", email: hostileEmail },
  });
});
