// The scrubber's reading of text (api/redact.ts): a `code` is a secret only where it is one (a one-time
// code, an OAuth code), never a currency's or a country's code; header lines and `name: value` pairs in
// free text (a log pasted into a HAR's comment) lose their values, and a `name=value` pair ends at a
// comma, so what follows it stays. Driven through `mpay support bundle` with a browser's HAR, and the
// scrubber's own text() for the spellings one by one.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const planted = {
  otpInQuery: '918273',
  otpInForm: '564738',
  headerLine: 'HDRproseKEY-0001',
  proseToken: 'PROSEtoken0002',
  commaToken: 'COMMAtoken0003',
  cookie: 'COOKIEvalue0004',
};

function entry(url: string, form: string, comment: string) {
  return {
    startedDateTime: '2026-11-22T10:00:00.000Z',
    time: 1,
    comment,
    request: {
      method: 'POST',
      url,
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }],
      cookies: [],
      queryString: [],
      postData: { mimeType: 'application/x-www-form-urlencoded', text: form },
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      content: { size: 2, mimeType: 'application/json', text: '{}' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}

it('a currency code survives the bundle, a one-time code and the values of prose secrets do not', async () => {
  const log = [
    'copied from the shop log:',
    `X-Merchant-Key: ${planted.headerLine}`,
    `  Cookie: laravel_session=${planted.cookie}; theme=dark`,
    `12:00:01 retry with token: ${planted.proseToken}, attempt 2`,
    `sent token=${planted.commaToken},next=1`,
    'merchant_key: The selected merchant key is invalid.',
  ].join('\n');
  const har = {
    log: {
      version: '1.2',
      creator: { name: 'WebInspector', version: '1' },
      entries: [
        entry(
          'https://api.example.com/restapi/v1/public/merchant/currencies?code=GHS&page=2',
          'amount=10&code=GHS&country=GH',
          log,
        ),
        entry(
          `https://shop.example.com/confirm?code=${planted.otpInQuery}&lang=en`,
          `step=confirm&code=${planted.otpInForm}`,
          '',
        ),
      ],
    },
  };
  const file = join(tempDir(), 'browser.har');
  writeFileSync(file, JSON.stringify(har));
  const out = join(tempDir(), 'bundle.tar.gz');
  const r = await mpay(['support', 'bundle', '--trace-file', file, '--out', out], {
    env: cliEnv(sb, tempDir()),
  });
  expect(r.code, r.stderr).toBe(0);
  const dir = tempDir();
  execFileSync('tar', ['-xzf', out, '-C', dir]);
  const trace = readFileSync(
    join(
      dir,
      readdirSync(dir).find((n) => n.startsWith('trace-1-'))!,
    ),
    'utf8',
  );
  for (const [what, value] of Object.entries(planted)) expect(trace, what).not.toContain(value);
  // identifiers a person needs: the currency's code in the URL and the form
  expect(trace).toContain('currencies?code=GHS&page=2');
  expect(trace).toContain('amount=10&code=GHS&country=GH');
  // the one-time codes are replaced, what surrounds them stays
  expect(trace).toContain('confirm?code=***&lang=en');
  expect(trace).toContain('step=confirm&code=***');
  // prose: the header line's and the pair's values replaced, the rest of the line kept
  expect(trace).toContain('X-Merchant-Key: ***');
  expect(trace).toContain('Cookie: ***');
  expect(trace).toContain('token: ***, attempt 2');
  expect(trace).toContain('token=***,next=1');
  // the server's words about a secret's field are not its value
  expect(trace).toContain('merchant_key: The selected merchant key is invalid.');
});
