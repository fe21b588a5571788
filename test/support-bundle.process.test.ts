// mpay support bundle: one archive for a ticket. Unpacked, none of its files holds a secret the test
// used, and customers' personal data is masked unless --include-personal-data (which warns).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const person = {
  'first-name': 'Kwabena',
  'last-name': 'Ofori',
  phone: '+233209876540',
  email: 'kwabena.ofori@example.org',
};

function unpack(archive: string): Record<string, string> {
  const dir = tempDir();
  execFileSync('tar', ['-xzf', archive, '-C', dir]);
  return Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

it.concurrent(
  'holds versions, settings, doctor, journal, traces and a README, and no secret and no personal data',
  async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const trace = join(tempDir(), 'run.har');
    expect(
      (await mpay(['deposit', ...customerArgs({ ...person, reference: 'sb-d' }), '--trace', trace], { env }))
        .code,
    ).toBe(0);
    const w = await mpay(
      [
        'withdraw',
        ...customerArgs({ ...person, reference: 'sb-w' }),
        '--otp',
        demoMerchant.otp,
        '--trace',
        trace,
      ],
      { env },
    );
    expect(w.code, w.stderr).toBe(0);
    const out = join(tempDir(), 'ticket.tar.gz');
    const r = await mpay(['support', 'bundle', '--trace-file', trace, '--out', out, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({
      file: out,
      files: [
        'versions.json',
        'profile.json',
        'doctor.json',
        'journal.ndjson',
        'trace-1-run.har',
        'README.txt',
      ],
    });
    const files = unpack(out);
    const token = Object.values(
      JSON.parse(readFileSync(join(cfg, 'tokens.json'), 'utf8')) as Record<string, { token: string }>,
    )[0]!.token;
    for (const [name, text] of Object.entries(files)) {
      for (const secret of [demoMerchant.merchantKey, demoMerchant.apiKey, token, demoMerchant.otp])
        expect(text, `${name} holds ${secret}`).not.toContain(secret);
      for (const personal of ['Kwabena', 'Ofori', '209876540', 'kwabena.ofori'])
        expect(text, `${name} holds ${personal}`).not.toContain(personal);
    }
    expect(JSON.parse(files['versions.json']!)).toMatchObject({
      packaging: 'npm package',
      node: process.version,
    });
    expect(files['journal.ndjson']).toContain('"first_name":"K."');
    expect(files['journal.ndjson']).toContain('k•••@example.org');
    expect(files['journal.ndjson']).toContain('540');
    expect(files['trace-1-run.har']).toContain('K.');
    expect(JSON.parse(files['doctor.json']!).ok).toBe(true);
    expect(JSON.parse(files['profile.json']!).merchant_key_fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(files['README.txt']).toMatch(/journal\.ndjson: the journal of default\/sandbox: \d+ events/);
    expect(files['README.txt']).toMatch(/personal data is masked/);
  },
);

it.concurrent(
  '--include-personal-data keeps it, with a warning; --reference keeps one transaction',
  async () => {
    const env = cliEnv(sb, tempDir());
    expect((await mpay(['deposit', ...customerArgs({ ...person, reference: 'sb-a' })], { env })).code).toBe(
      0,
    );
    expect((await mpay(['deposit', ...customerArgs({ ...person, reference: 'sb-b' })], { env })).code).toBe(
      0,
    );
    const out = join(tempDir(), 'full.tar.gz');
    const r = await mpay(
      ['support', 'bundle', '--include-personal-data', '--reference', 'sb-b', '--out', out],
      { env },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/mpay: warning: the bundle keeps customers' names, phones and e-mails/);
    const journal = unpack(out)['journal.ndjson']!;
    expect(journal).toContain('Kwabena');
    expect(journal).not.toContain('sb-a');
    expect(journal).toContain('sb-b');
  },
);

/** Every spelling of a secret a file could hold: as it is, URL-, JSON-, HTML-escaped, and base64 at any offset. */
function spellingsOf(secret: string): string[] {
  const out = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  out.push(secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
  for (let pad = 0; pad < 3; pad++) {
    const enc = Buffer.concat([Buffer.alloc(pad), Buffer.from(secret)]).toString('base64');
    const piece = enc.slice(pad ? 4 : 0, Math.floor((pad + secret.length) / 3) * 4);
    out.push(piece, piece.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

it('a browser HAR with the key in a beacon, a query, a cookie and the page: no copy of a secret in the bundle', async () => {
  // the merchant's own secrets, not the profile's: known only from what the HAR shows
  const key = 'mk_live_7Hq2ZpXw9LmN4vRt';
  const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.q3Vf8sK1-Zr_5tYw';
  const session = 'eyJpdiI6Ik1+Z3Jv/aW5nIn0=Xk9';
  const api = 'https://pay.example/restapi/v1';
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const entry = (request: object, response: object) => ({
    startedDateTime: '2026-11-20T10:00:00.000Z',
    time: 12,
    request: {
      httpVersion: 'HTTP/2',
      cookies: [],
      headers: [],
      queryString: [],
      headersSize: -1,
      bodySize: -1,
      ...request,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/2',
      cookies: [],
      headers: [],
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      ...response,
    },
    cache: {},
    timings: { send: 0, wait: 10, receive: 2 },
  });
  const har = {
    log: {
      version: '1.2',
      creator: { name: 'WebInspector', version: '537.36' },
      pages: [],
      entries: [
        // the page: the key in a script and a hidden input of a name that says nothing, a base64 config
        entry(
          {
            method: 'GET',
            url: 'https://shop.example/checkout',
            headers: [{ name: 'Cookie', value: `laravel_session=${session}; _ga=GA1.2.3` }],
          },
          {
            content: {
              mimeType: 'text/html',
              text: `<html><script>window.pay = { merchantKey: "${key}" };</script><input type="hidden" name="m" value="${key}"><meta name="cfg" content="${b64(JSON.stringify({ k: key, t: token }))}"><a href="/back?s=${encodeURIComponent(session)}">back</a></html>`,
            },
          },
        ),
        // the token request: the key by name (multipart), the token in the answer, the session set
        entry(
          {
            method: 'POST',
            url: `${api}/auth/merchant/token/generate`,
            postData: {
              mimeType: 'multipart/form-data; boundary=x',
              text: `--x\r\nContent-Disposition: form-data; name="merchant_key"\r\n\r\n${key}\r\n--x--\r\n`,
            },
          },
          {
            headers: [{ name: 'Set-Cookie', value: `laravel_session=${session}; path=/; httponly` }],
            content: {
              mimeType: 'application/json',
              text: JSON.stringify({
                success: true,
                message: 'Token generated successfully.',
                data: { token },
              }),
            },
          },
        ),
        // an analytics beacon: text/plain, the key under ep.merchant_key
        entry(
          {
            method: 'POST',
            url: 'https://www.google-analytics.com/g/collect?v=2&tid=G-ABC123',
            postData: {
              mimeType: 'text/plain;charset=UTF-8',
              text: `en=page_view&ep.merchant_key=${key}&ep.step=checkout`,
            },
          },
          { status: 204, content: { mimeType: 'text/plain', text: '' } },
        ),
        // a widget loaded with the key in its query, under a name that says nothing
        entry(
          { method: 'GET', url: `https://cdn.example/widget.js?merchant=${key}&v=3` },
          { content: { mimeType: 'application/javascript', text: 'ok' } },
        ),
        // an API call: the bearer in its header, an answer kept as base64 that repeats the token
        entry(
          {
            method: 'GET',
            url: `${api}/merchant/currencies`,
            headers: [{ name: 'Authorization', value: `Bearer ${token}` }],
          },
          {
            content: {
              mimeType: 'application/json',
              encoding: 'base64',
              text: b64(JSON.stringify({ success: true, data: [], debug: `auth ${token}` })),
            },
          },
        ),
      ],
    },
  };
  const file = join(tempDir(), 'ticket.har');
  writeFileSync(file, JSON.stringify(har));
  const out = join(tempDir(), 'ticket.tar.gz');
  const r = await mpay(['support', 'bundle', '--trace-file', file, '--out', out, '--json'], {
    env: cliEnv(sb, tempDir()),
  });
  expect(r.code, r.stderr).toBe(0);
  const files = unpack(out);
  const all = Object.values(files).join('\n');
  // base64 bodies decoded too: what a reader of the archive would see in them
  const decoded = [...all.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map((m) =>
    Buffer.from(m[0], 'base64').toString('latin1'),
  );
  for (const secret of [key, token, session])
    for (const s of spellingsOf(secret)) {
      expect(all, `${secret} as ${s}`).not.toContain(s);
      for (const d of decoded) expect(d, `${secret} in base64`).not.toContain(secret);
    }
  // the trace is still a trace: the calls and the page are there, the beacon's other fields kept
  const trace = JSON.parse(files['trace-1-ticket.har']!);
  expect(trace.log.entries).toHaveLength(5);
  expect(trace.log.entries[2].request.postData.text).toContain('ep.step=checkout');
  expect(files['README.txt']).toMatch(/every value the\s+traces show under a secret's name anywhere/);
});
