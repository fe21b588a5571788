// The smaller holes of what mpay takes in: a YAML alias in a scenario is refused at its line and column
// (it was sent as the parser's node, {"source": "a9"}); a CSV cell that starts with a tab or a carriage
// return is made formula-safe like one that starts with =; a `__proto__` or `constructor` key in a trace
// is data, never an internal error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderCsv } from '../src/ui/output.js';
import { cliEnv, file, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('a YAML alias in a request body is refused at its line and column, nothing sent', async () => {
  const s = file(
    'alias.yaml',
    `name: aliases
vars:
  src: &a9 { currency_code: GHS }
steps:
  - name: initiate
    request:
      method: POST
      path: /payments/initiate
      credentials: true
      json:
        currency_code: GHS
        source: *a9
`,
  );
  const before = await requestCounts(sb);
  const r = await mpay(['run', s], { env: cliEnv(sb, tempDir()) });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/alias\.yaml:12:17: an alias \(\*a9\) is not read: write the value itself/);
  expect(await requestCounts(sb)).toEqual(before);
});

it('a CSV cell starting with a tab or a carriage return then a formula is quoted as text', () => {
  const csv = renderCsv(
    [{ a: '\t=HYPERLINK("http://x")' }, { a: '\r=1+1' }, { a: '=SUM(A1)' }, { a: '-12.5' }],
    [{ key: 'a' }],
  );
  const cells = csv.split('\n').slice(1).join('\n');
  expect(cells).toContain(`"'\t=HYPERLINK(""http://x"")"`);
  // a carriage return is shown as text (\x0d) by the cleaning every output passes: inert
  expect(cells).toContain('\\x0d=1+1');
  expect(cells).toContain(`'=SUM(A1)`);
  expect(cells).toContain('-12.5');
  expect(cells).not.toMatch(/^"?[\t\r]=/m);
});

it('a trace whose calls carry __proto__ and constructor keys: data, replayed and reported, no internal error', async () => {
  const body = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"x":1}},"currency_code":"GHS"}';
  const entry = {
    startedDateTime: '2026-11-22T10:00:00.000Z',
    time: 1,
    request: {
      method: 'POST',
      url: 'https://api.example.com/restapi/v1/payments/initiate',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      cookies: [],
      queryString: [{ name: '__proto__', value: 'q' }],
      postData: { mimeType: 'application/json', text: body },
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: 422,
      statusText: 'Unprocessable',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: '__proto__', value: 'h' }],
      cookies: [],
      content: {
        size: 2,
        mimeType: 'application/json',
        text: '{"__proto__":{"a":1},"status":false,"message":"x"}',
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
  const har = file(
    'proto.har',
    JSON.stringify({
      log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [entry] },
    }).replace('"queryString"', '"__proto__":{"y":2},"queryString"'),
  );
  const dir = tempDir();
  const env = cliEnv(sb, dir);
  const plan = await mpay(['replay', har, '--dry-run', '--json'], { env });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('__proto__');
  const r = await mpay(['replay', har, '--json', '--yes'], { env });
  expect([0, 13], r.stderr).toContain(r.code);
  expect(r.stdout).toContain('payments/initiate');
  const out = join(dir, 's.yaml');
  const s = await mpay(['replay', har, '--save-scenario', out], { env });
  expect(s.code, s.stderr).toBe(0);
  expect(readFileSync(out, 'utf8')).toContain('__proto__');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
