// One scrubber for everything mpay hands out (api/redact.ts): a HAR exported from a browser, planted with
// secrets in every place a browser puts them, goes into a support bundle with none of them left, found by
// name (headers, cookies, query parameters, fields at any depth) and by value (the run's own keys, wherever
// they appear); and masking personal data leaves header names, the HAR's creator and currency names alone.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const secrets = {
  multipartKey: 'mk_MULTIPARTLEAK34',
  multipartOtp: '445566',
  textBearer: 'TEXTBEARER41abc',
  oauthCode: 'OAUTHCODE9876',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.e30.sig',
  base64Token: 'B64TOKEN-hidden-0042',
  bearer: 'BROWSERtoken0123456789',
  session: 'SESSIONsecret987654',
  apiKeyHeader: 'XAPIKEY-777-abc',
  password: 'hunter2hunter2',
  proxy: 'cHJveHk6c2VjcmV0',
};

function browserHar(): unknown {
  const { bearer, session, apiKeyHeader, password, proxy } = secrets;
  const mk = demoMerchant.merchantKey;
  const ak = demoMerchant.apiKey;
  return {
    log: {
      version: '1.2',
      creator: { name: 'WebInspector', version: '537.36' },
      entries: [
        {
          startedDateTime: '2026-11-22T10:00:00.000Z',
          time: 12,
          request: {
            method: 'POST',
            url: `https://api.example.com/restapi/v1/payments/initiate?api_key=${ak}&access_token=${bearer}&page=2`,
            httpVersion: 'HTTP/1.1',
            headers: [
              { name: 'Authorization', value: `Bearer ${bearer}` },
              { name: 'Proxy-Authorization', value: `Basic ${proxy}` },
              { name: 'Cookie', value: `laravel_session=${session}; theme=dark` },
              { name: 'X-Api-Key', value: apiKeyHeader },
              { name: 'Accept', value: 'application/json' },
            ],
            cookies: [{ name: 'laravel_session', value: session }],
            queryString: [
              { name: 'api_key', value: ak },
              { name: 'access_token', value: bearer },
              { name: 'page', value: '2' },
            ],
            postData: {
              mimeType: 'application/json',
              text: JSON.stringify({
                merchant_key: mk,
                site_id: 1,
                nested: { deeper: [{ password }] },
                note: `pasted the key ${mk} here`,
                customer_first_name: 'Kwabena',
              }),
              params: [{ name: 'otp', value: '654321' }],
            },
            headersSize: -1,
            bodySize: -1,
          },
          response: {
            status: 200,
            statusText: 'OK',
            httpVersion: 'HTTP/1.1',
            headers: [{ name: 'Set-Cookie', value: `laravel_session=${session}; HttpOnly` }],
            cookies: [{ name: 'laravel_session', value: session }],
            content: {
              size: 10,
              mimeType: 'application/json',
              text: JSON.stringify({ data: { token: bearer, currency: { name: 'Ghana Cedi' } } }),
            },
            redirectURL: '',
            headersSize: -1,
            bodySize: -1,
          },
          cache: {},
          timings: { send: 0, wait: 10, receive: 2 },
        },
        {
          startedDateTime: '2026-11-22T10:00:01.000Z',
          time: 12,
          request: {
            method: 'POST',
            url: 'https://api.example.com/restapi/v1/auth/merchant/token/generate',
            httpVersion: 'HTTP/1.1',
            headers: [{ name: 'Content-Type', value: 'multipart/form-data; boundary=XyZ' }],
            cookies: [],
            queryString: [],
            postData: {
              mimeType: 'multipart/form-data; boundary=XyZ',
              text: `--XyZ\r\nContent-Disposition: form-data; name="merchant_key"\r\n\r\n${secrets.multipartKey}\r\n--XyZ\r\nContent-Disposition: form-data; name="otp"\r\n\r\n${secrets.multipartOtp}\r\n--XyZ\r\nContent-Disposition: form-data; name="currency_code"\r\n\r\nGHS\r\n--XyZ--\r\n`,
            },
            headersSize: -1,
            bodySize: -1,
          },
          response: {
            status: 302,
            statusText: 'Found',
            httpVersion: 'HTTP/1.1',
            headers: [
              { name: 'Location', value: `https://app.example.com/cb?code=${secrets.oauthCode}&lang=en` },
            ],
            cookies: [],
            content: {
              size: 10,
              mimeType: 'application/json',
              encoding: 'base64',
              text: Buffer.from(
                JSON.stringify({
                  data: { token: secrets.base64Token, note: `key ${demoMerchant.merchantKey}` },
                }),
              ).toString('base64'),
            },
            redirectURL: '',
            headersSize: -1,
            bodySize: -1,
          },
          cache: {},
          timings: { send: 0, wait: 10, receive: 2 },
        },
        {
          startedDateTime: '2026-11-22T10:00:02.000Z',
          time: 1,
          request: {
            method: 'GET',
            url: 'https://api.example.com/x',
            httpVersion: 'HTTP/1.1',
            headers: [],
            cookies: [],
            queryString: [],
            headersSize: -1,
            bodySize: -1,
          },
          response: {
            status: 200,
            statusText: 'OK',
            httpVersion: 'HTTP/1.1',
            headers: [],
            cookies: [],
            content: {
              size: 10,
              mimeType: 'text/plain',
              text: `use Bearer ${secrets.textBearer} and {"jwt":"${secrets.jwt}"} for GHS`,
            },
            redirectURL: '',
            headersSize: -1,
            bodySize: -1,
          },
          cache: {},
          timings: { send: 0, wait: 1, receive: 0 },
        },
      ],
    },
  };
}

it('a browser HAR enters the bundle with every secret scrubbed, by name and by value, and names left alone', async () => {
  const cfg = tempDir();
  const har = join(tempDir(), 'browser.har');
  writeFileSync(har, JSON.stringify(browserHar(), null, 2));
  const out = join(tempDir(), 'bundle.tar.gz');
  const r = await mpay(['support', 'bundle', '--trace-file', har, '--out', out], { env: cliEnv(sb, cfg) });
  expect(r.code, r.stderr).toBe(0);
  const dir = tempDir();
  execFileSync('tar', ['-xzf', out, '-C', dir]);
  const files = Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
  const all = Object.values(files).join('\n');
  for (const s of [...Object.values(secrets), demoMerchant.merchantKey, demoMerchant.apiKey, '654321'])
    expect(all, s).not.toContain(s);
  const trace = files['trace-1-browser.har']!;
  // A body kept as base64 never holds a secret in plain text: it is decoded, then looked at.
  const bodies = (
    JSON.parse(trace).log.entries as { response: { content: { encoding?: string; text?: string } } }[]
  )
    .map((e) => e.response.content)
    .filter((c) => c.encoding === 'base64');
  expect(bodies).toHaveLength(1);
  const decoded = Buffer.from(bodies[0]!.text!, 'base64').toString('utf8');
  expect(decoded).toContain('"token":"***"');
  for (const s of [secrets.base64Token, demoMerchant.merchantKey]) expect(decoded, s).not.toContain(s);
  // Names are not personal data: header names, the creator, a currency's name stay as they were.
  for (const kept of [
    '"name": "Authorization"',
    '"name": "Set-Cookie"',
    '"name": "WebInspector"',
    'Ghana Cedi',
  ])
    expect(trace).toContain(kept);
  expect(trace).toContain('page=2');
  expect(trace).toContain('lang=en');
  expect(trace).toContain('name=\\"currency_code\\"\\r\\n\\r\\nGHS');
  expect(trace).toContain('for GHS');
  expect(trace).not.toContain('Kwabena');
  expect(trace).toContain('\\"customer_first_name\\":\\"K.\\"');
  expect(files['README.txt']).not.toMatch(/No secret is in it/);
  expect(files['README.txt']).toMatch(
    /scrubbed from every file before it was added: by name .* and by value/s,
  );
});
