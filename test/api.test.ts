// mpay api METHOD PATH: any endpoint, authenticated as every command is; fields typed or raw, a whole
// body from a file or stdin, the encoding mpay reads the spec to use unless told; the answer as sent and
// the exit code of its status; GETs retried, POSTs never; --dry-run prints the curl.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiInitiate, apiToken, cliEnv, sandbox, setFaults, tempDir, requestCounts } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  sb = await sandbox();
  env = cliEnv(sb, tempDir());
});
afterAll(() => sb.close());

const counts = () => requestCounts(sb);

it('GET with the bearer token added; the body printed exactly as sent, in a pipe', async () => {
  const r = await mpay(['api', 'GET', '/merchant/currencies'], { env });
  expect(r.code, r.stderr).toBe(0);
  const direct = await (
    await fetch(`${sb.url}/restapi/v1/merchant/currencies`, {
      headers: { authorization: `Bearer ${await apiToken(sb.url)}` },
    })
  ).text();
  expect(r.stdout).toBe(direct);
  const pub = await mpay(['api', 'GET', 'public/countries', '--include'], { env });
  expect(pub.stdout).toMatch(/^HTTP\/1\.1 200 OK\ncontent-type: application\/json/);
  const full = await mpay(['api', 'GET', `${sb.url}/restapi/v1/public/countries`], { env });
  expect(JSON.parse(full.stdout).data).toHaveLength(6);
});

it('POST status update as form-data with typed and raw fields; a whole JSON body with --credentials for initiate', async () => {
  const hash = (await (await apiInitiate(sb.url, await apiToken(sb.url), 'api-1')).json()).data.has_token;
  const update = [
    'api',
    'POST',
    '/payments/status/update',
    '-f',
    `hash_token=${hash}`,
    '-f',
    'status=initiated',
    '-F',
    'gateway_id=1',
  ];
  const dry = await mpay([...update, '--dry-run'], { env });
  expect(dry.stdout).toMatch(/--form-string 'gateway_id=1'/);
  const r = await mpay(update, { env });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).data).toMatchObject({ status: 'initiated', customer_transaction_id: 'api-1' });
  const file = join(tempDir(), 'body.json');
  writeFileSync(
    file,
    JSON.stringify({
      currency_code: 'GHS',
      country_code: 'GH',
      customer_first_name: 'Ama',
      customer_phone: '+233201234567',
      customer_email: 'a@b.co',
      customer_transaction_id: 'api-2',
      amount: '10',
    }),
  );
  const init = await mpay(['api', 'POST', '/payments/initiate', '--credentials', '--input', file], { env });
  expect(init.code, init.stdout).toBe(0);
  expect(JSON.parse(init.stdout).data.customer_transaction_id).toBe('api-2');
  const stdin = await mpay(
    [
      'api',
      'POST',
      '/payments/initiate',
      '--credentials',
      '--input',
      '-',
      '-f',
      'customer_transaction_id=api-3',
    ],
    {
      env,
      input: readBody(file),
    },
  );
  expect(JSON.parse(stdin.stdout).data.customer_transaction_id).toBe('api-3');
});

it('an error status is printed as sent and exits with its code; POSTs are never retried, GETs are', async () => {
  const dup = await mpay(
    [
      'api',
      'POST',
      '/payments/status/update',
      '-f',
      'hash_token=nope0000',
      '-f',
      'status=initiated',
      '-F',
      'gateway_id=1',
    ],
    { env },
  );
  expect(dup.code).toBe(4);
  expect(JSON.parse(dup.stdout)).toMatchObject({ status: false, message: 'Validation failed.' });
  expect(dup.stderr).toMatch(/mpay: HTTP 422 from POST \/restapi\/v1\/payments\/status\/update/);
  await setFaults(sb, {
    faults: ['500'],
    rate: 1,
    faultPaths: ['/payments/status/update', '/public/countries'],
  });
  const before = await counts();
  const post = await mpay(['api', 'POST', '/payments/status/update', '-f', 'hash_token=x0000000'], {
    env: { ...env, MPAY_RETRY_BASE_MS: '1' },
  });
  const get = await mpay(['api', 'GET', '/public/countries'], { env: { ...env, MPAY_RETRY_BASE_MS: '1' } });
  await setFaults(sb, { rate: 0 });
  const after = await counts();
  expect(post.code).toBe(7);
  expect(get.code).toBe(7);
  expect(after['POST /payments/status/update']! - (before['POST /payments/status/update'] ?? 0)).toBe(1);
  expect(after['GET /public/countries']! - (before['GET /public/countries'] ?? 0)).toBe(3);
});

it('a revoked token is renewed once; another host and a bad field are usage errors', async () => {
  expect((await mpay(['api', 'GET', '/merchant/currencies'], { env })).code).toBe(0);
  await fetch(`${sb.url}/_sandbox/revoke-tokens`, { method: 'POST' });
  expect((await mpay(['api', 'GET', '/merchant/currencies'], { env })).code).toBe(0);
  const other = await mpay(['api', 'GET', 'https://example.com/restapi/v1/public/countries'], { env });
  expect(other.code).toBe(2);
  expect(other.stderr).toMatch(/is not the profile's server/);
  expect((await mpay(['api', 'POST', '/payments/initiate', '-F', 'novalue'], { env })).code).toBe(2);
});

it('a 404 exits as everywhere else: 7 for a route that is not there, 5 for the API\'s "not initiated"', async () => {
  const nope = await mpay(['api', 'GET', '/no/such/route'], { env });
  expect(nope.code).toBe(7);
  expect(nope.stderr).toMatch(/hint: not a route of the API here/);
  const hash = (await (await apiInitiate(sb.url, await apiToken(sb.url), 'api-404')).json()).data.has_token;
  const args = ['-f', `hash_token=${hash}`, '-f', 'status=failed', '-F', 'gateway_id=1'];
  expect((await mpay(['api', 'POST', '/payments/status/update', ...args], { env })).code).toBe(0);
  const again = await mpay(['api', 'POST', '/payments/status/update', ...args], { env });
  expect(again.code).toBe(5);
  expect(JSON.parse(again.stdout).message).toBe('Transaction status is not initiated.');
});

function readBody(file: string): string {
  return JSON.stringify({
    ...JSON.parse(readFileSync(file, 'utf8')),
    customer_transaction_id: 'x',
  });
}

it('-F @file, -H, --encoding json for a form endpoint, and indented output on a terminal', async () => {
  const hash = (await (await apiInitiate(sb.url, await apiToken(sb.url), 'api-4')).json()).data.has_token;
  const file = join(tempDir(), 'hash.txt');
  writeFileSync(file, `${hash}\n`);
  const args = [
    'api',
    'POST',
    '/payments/status/update',
    '-F',
    `hash_token=@${file}`,
    '-f',
    'status=initiated',
    '-F',
    'gateway_id=1',
  ];
  const dry = await mpay([...args, '--encoding', 'json', '-H', 'x-trace-id: t-1', '--dry-run'], { env });
  expect(dry.stdout).toContain(`"hash_token": "${hash}"`);
  expect(dry.stdout).toContain('(application/json)');
  expect(dry.stdout).toContain("-H 'x-trace-id: t-1'");
  // Typed, as it goes out: a number in JSON.
  expect(dry.stdout).toContain('"gateway_id": 1');
  expect(dry.stdout).toContain('"gateway_id":1,');
  const tty = await mpay([...args, '--encoding', 'json'], { env, tty: true, width: 80 });
  expect(tty.code, tty.stderr).toBe(0);
  expect(tty.stdout).toMatch(/^\{\n {2}"success": true,\n/);
});

it('--json is the output flag of every command: one JSON document, the error document on a failure', async () => {
  // the answer, as one document (and --query on it, which implies --json)
  const ok = await mpay(['api', 'GET', '/public/countries', '--json'], { env });
  expect(ok.code, ok.stderr).toBe(0);
  expect(ok.json().data.length).toBeGreaterThan(0);
  const codes = await mpay(['api', 'GET', '/public/countries', '--query', 'data[].code'], { env });
  expect(codes.code, codes.stderr).toBe(0);
  expect(codes.json()).toEqual(ok.json().data.map((c: { code: string }) => c.code));
  // a 422: the contract's error document on stdout, its message on stderr, exit 4
  const bad = await mpay(
    ['api', 'POST', '/payments/initiate', '--credentials', '-f', 'currency_code=GHS', '--json'],
    { env },
  );
  expect(bad.code).toBe(4);
  const { error } = bad.json();
  expect(error.kind).toBe('validation');
  expect(error.status).toBe(422);
  expect(Object.keys(error.fields).length).toBeGreaterThan(0);
  // the body's encoding has a name of its own; the old meaning of --json sends nothing as form-data now
  const dry = await mpay(
    [
      'api',
      'POST',
      '/payments/status/update',
      '-f',
      'hash_token=x',
      '--encoding',
      'json',
      '--dry-run',
      '--json',
    ],
    { env },
  );
  expect(dry.code, dry.stderr).toBe(0);
  expect(JSON.parse(dry.stdout).request.headers['content-type']).toMatch(/application\/json/);
  const both = await mpay(['api', 'GET', '/public/countries', '--json', '--include'], { env });
  expect(both.code).toBe(2);
  expect(both.stderr).toMatch(/--include/);
});
