// mpay proxy --upstream URL: the real bin/run.js forwarding to a sandbox (no departure from the API's
// document: a deposit with its wallet step, a withdrawal with its code, the lists) and to a server of the
// test's own that sends numbers as strings, nulls, extra fields and an undocumented status (each reported,
// as NDJSON, with no secret in the report); an https upstream signed by a private CA (NODE_EXTRA_CA_CERTS).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  cliEnv,
  customerArgs,
  firstJsonLine,
  loopbackServer,
  proxyCli,
  requestCounts,
  run,
  sandbox,
  selfSignedCert,
  spawnMpay,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';

const records = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('in front of the sandbox: every answer conforms, so the report stays empty', async () => {
  const report = join(tempDir(), 'departures.ndjson');
  const proxy = await proxyCli(sb.url, report);
  try {
    const env = cliEnv({ url: proxy.url }, tempDir());
    const d = await mpay(
      ['deposit', ...customerArgs({ currency: 'USD', country: 'US', gateway: '5' }), '--json'],
      {
        env,
      },
    );
    expect(d.code, d.stderr).toBe(0);
    expect(d.json().wallet_address).toBeTruthy();
    const w = await mpay(['withdraw', ...customerArgs(), '--otp', demoMerchant.otp, '--json'], { env });
    expect(w.code, w.stderr).toBe(0);
    for (const cmd of [['countries'], ['currencies'], ['balances']])
      expect((await mpay([...cmd, '--json'], { env })).code).toBe(0);
    // a refusal of the API's own is documented too: a 422 on a duplicate reference (sent from a config
    // folder whose journal does not know the reference, which mpay would refuse before sending)
    const dup = await mpay(
      ['deposit', 'initiate', ...customerArgs({ reference: d.json().reference, gateway: '' })],
      { env: cliEnv({ url: proxy.url }, tempDir()) },
    );
    expect(dup.code, dup.stderr).toBe(4);
    // everything went through to the sandbox
    const counts = await requestCounts(sb);
    expect(counts['POST /payments/crypto/wallet/address/update']).toBe(1);
    expect(counts['POST /payments/withdraw/processed']).toBe(2);
  } finally {
    const end = await proxy.stop();
    expect(end.stderr).toMatch(/mpay proxy: \d+ requests forwarded, 0 departures/);
  }
  expect(records(report)).toEqual([]);
});

describe('in front of a server that departs from the document', () => {
  const secrets = {
    key: 'mk_live_departure_4455',
    token: 'tok_live_departure_778899',
  };
  let server: Awaited<ReturnType<typeof loopbackServer>>;
  beforeAll(async () => {
    server = await loopbackServer((req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      switch (`${req.method} ${req.url!.split('?')[0]}`) {
        case 'GET /restapi/v1/public/currencies':
          // a number as a string, a null where a string is required, a field the document does not name
          return send(200, {
            success: true,
            message: 'ok',
            // three items alike: one record a field, array items folded, with its count
            data: ['1', '2', '3'].map((id) => ({
              id,
              name: null,
              code: 'GHS',
              usd_exchange_rate: 15.5,
              rank: 3,
            })),
          });
        case 'GET /restapi/v1/public/countries':
          return send(418, { success: false, message: "I'm a teapot" });
        case 'POST /restapi/v1/auth/merchant/token/generate':
          return send(200, { success: true, message: 'ok', data: { token: secrets.token } });
        case 'GET /restapi/v1/merchant/currencies':
          // a server that echoes what it was given, as a field's name and in its message
          return send(200, {
            success: true,
            message: `hello ${secrets.key}`,
            data: [],
            [`seen_${secrets.token}`]: true,
          });
        default:
          return send(404, { message: 'no such route' });
      }
    });
  });
  afterAll(() => server.close());

  it('reports each departure as one NDJSON record, with no secret in it', async () => {
    const report = join(tempDir(), 'departures.ndjson');
    const proxy = await proxyCli(server.url, report);
    let stderr = '';
    try {
      const currencies = await fetch(`${proxy.url}/restapi/v1/public/currencies`);
      // the answer goes back as it came
      expect((await currencies.json()).data[0].id).toBe('1');
      expect((await fetch(`${proxy.url}/restapi/v1/public/countries`)).status).toBe(418);
      const token = await fetch(`${proxy.url}/restapi/v1/auth/merchant/token/generate`, {
        method: 'POST',
        body: new URLSearchParams({ merchant_key: secrets.key }),
      });
      expect((await token.json()).data.token).toBe(secrets.token);
      const merchant = await fetch(`${proxy.url}/restapi/v1/merchant/currencies?api_key=${secrets.key}`, {
        headers: { authorization: `Bearer ${secrets.token}` },
      });
      expect(merchant.status).toBe(200);
    } finally {
      stderr = (await proxy.stop()).stderr;
    }
    const found = records(report);
    const pick = (r: Record<string, unknown>) => ({
      path: r.path,
      status: r.status,
      kind: r.kind,
      field: r.field,
      count: r.count,
      example: r.example,
    });
    const currencies = { path: '/restapi/v1/public/currencies', status: 200, count: 3 };
    expect(found.map(pick)).toEqual(
      expect.arrayContaining([
        { ...currencies, kind: 'schema', field: '/data/*/id', example: '/data/0/id' },
        { ...currencies, kind: 'schema', field: '/data/*/name', example: '/data/0/name' },
        { ...currencies, kind: 'field', field: '/data/*/rank', example: '/data/0/rank' },
        {
          path: '/restapi/v1/public/countries',
          status: 418,
          kind: 'status',
          field: undefined,
          count: 1,
          example: undefined,
        },
      ]),
    );
    // one record a field path of the answer, not one a field of each item
    expect(found.filter((r) => r.path === '/restapi/v1/public/currencies')).toHaveLength(3);
    const byField = (f: string) => found.find((r) => r.field === f)!;
    expect(byField('/data/*/id').message).toBe('must be number, is string');
    expect(byField('/data/*/name').message).toBe('must be string, is null');
    expect(found.find((r) => r.kind === 'status')!.message).toMatch(
      /HTTP 418 is not a status the document lists/,
    );
    // the echoed field is reported, under a name scrubbed of the token it carried
    const echoed = found.find((r) => r.path === '/restapi/v1/merchant/currencies' && r.kind === 'field')!;
    expect(echoed.field).toBe('/seen_***');
    for (const r of found) {
      expect(Date.parse(String(r.time))).not.toBeNaN();
      expect(r.method).toMatch(/^(GET|POST)$/);
    }
    // the token generate answer conforms: nothing reported for it
    expect(found.filter((r) => String(r.path).includes('token'))).toEqual([]);
    const text = readFileSync(report, 'utf8') + stderr;
    for (const s of Object.values(secrets)) expect(text).not.toContain(s);
    expect(stderr).toMatch(
      /4 requests forwarded, [1-9]\d* departures from the document, in \d+ groups by field:/,
    );
    expect(stderr).toMatch(/^ {2}3 × GET \/restapi\/v1\/public\/currencies schema \/data\/\*\/id$/m);
  });

  it('without --report and a terminal, each record goes to stderr', async () => {
    const p = spawnMpay(['proxy', '--upstream', server.url, '--port', '0', '--json'], {});
    const url: string = (await firstJsonLine(p.child)).url;
    expect((await fetch(`${url}/restapi/v1/public/countries`)).status).toBe(418);
    p.child.kill('SIGTERM');
    const end = await p.done;
    const lines = end.stderr.split('\n').filter((l) => l.startsWith('{'));
    expect(lines.map((l) => JSON.parse(l).kind)).toEqual(['status']);
    // stdout held exactly one JSON document: where it listened
    expect(JSON.parse(end.stdout).url).toBe(url);
  });
});

describe("each secret a request or an answer carries is the report's secret on its own", () => {
  // Three secrets, each reaching the proxy one way only, each echoed back by the server in a field the
  // document does not name (a departure, whose path would show it): a token the upstream handed out, a
  // bearer token it never handed out (a client's cached one), a key in a POST body.
  const handed = 'Plumtree4417handed';
  const bearer = 'Quincewood2290bearer';
  const key = 'Rowanfield5563key';
  let server: Awaited<ReturnType<typeof loopbackServer>>;
  beforeAll(async () => {
    server = await loopbackServer((req, res) => {
      const send = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const route = `${req.method} ${req.url!.split('?')[0]}`;
      // (the body is not read here: the query says which answer carries the key back)
      if (route === 'POST /restapi/v1/auth/merchant/token/generate' && req.url!.endsWith('?echo=key'))
        return send({ success: true, message: 'ok', data: { token: 'x' }, [`seen_${key}`]: true });
      if (route === 'POST /restapi/v1/auth/merchant/token/generate')
        return send({ success: true, message: 'ok', data: { token: handed } });
      if (route === 'GET /restapi/v1/public/currencies')
        return send({ success: true, message: 'ok', data: [], [`seen_${handed}`]: true });
      const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      return send({ success: true, message: 'ok', data: [], [`seen_${auth}`]: true });
    });
  });
  afterAll(() => server.close());

  it('the token an answer hands out, a bearer token never handed out, and a key in a body: none reaches the report', async () => {
    const report = join(tempDir(), 'departures.ndjson');
    const proxy = await proxyCli(server.url, report);
    let stderr = '';
    try {
      const handing = await fetch(`${proxy.url}/restapi/v1/auth/merchant/token/generate`, {
        method: 'POST',
        body: new URLSearchParams({ merchant_key: 'mk_other' }),
      });
      expect((await handing.json()).data.token).toBe(handed);
      // no Authorization: only the answer above made this token a secret
      expect((await fetch(`${proxy.url}/restapi/v1/public/currencies`)).status).toBe(200);
      const mine = await fetch(`${proxy.url}/restapi/v1/merchant/currencies`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(mine.status).toBe(200);
      const keyed = await fetch(`${proxy.url}/restapi/v1/auth/merchant/token/generate?echo=key`, {
        method: 'POST',
        body: new URLSearchParams({ merchant_key: key }),
      });
      expect(keyed.status).toBe(200);
    } finally {
      stderr = (await proxy.stop()).stderr;
    }
    const fields = records(report)
      .filter((r) => r.kind === 'field')
      .map((r) => `${String(r.path)} ${String(r.field)}`);
    expect(fields.sort()).toEqual([
      '/restapi/v1/auth/merchant/token/generate /seen_***',
      '/restapi/v1/merchant/currencies /seen_***',
      '/restapi/v1/public/currencies /seen_***',
    ]);
    const text = readFileSync(report, 'utf8') + stderr;
    for (const s of [handed, bearer, key]) expect(text).not.toContain(s);
  });
});

it('an https upstream signed by a private CA: forwarded with NODE_EXTRA_CA_CERTS, as the client does', async () => {
  const { key, cert, certFile } = selfSignedCert();
  const tls = await sandbox({ tls: { key, cert } });
  const report = join(tempDir(), 'tls.ndjson');
  const proxy = await proxyCli(tls.url, report, { NODE_EXTRA_CA_CERTS: certFile });
  try {
    const r = await mpay(['countries', '--json'], { env: cliEnv({ url: proxy.url }, tempDir()) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().length).toBeGreaterThan(0);
  } finally {
    await proxy.stop();
    await tls.close();
  }
  expect(records(report)).toEqual([]);
});

it('refuses a plain-http upstream that is not loopback (exit 2)', async () => {
  const r = await run(['proxy', '--upstream', 'http://api.example.com', '--port', '0', '--json']);
  expect(r.code).toBe(2);
  expect(r.json().error.message).toMatch(/http/i);
});
