// The scrubber knows names, not spellings (api/redact.ts): a browser's HAR whose secrets are spelled every
// way a browser or a framework spells them (X-Merchant-Key, merchantKey, MerchantKey, otp_code, pin,
// pin_code, passcode), with values this run does not hold (another profile's key), enters a support
// bundle with none of them left, while the identifiers a person needs (hash_token, a currency's code, a
// dial code) stay. And the known secrets belong to the run: a value another run registered is not
// scrubbed from this one's output, the run's own is.
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

const planted = {
  header: 'HDRmerchantKEY-0001',
  headerRule: 'HDRsessionREF-0002',
  form: 'FORMmerchantKEY-0003',
  pascal: 'PASCALkey-0004',
  kebab: 'KEBABkey-0005',
  otpCode: '918273',
  pin: '4711',
  pinCode: '8642',
  passcode: 'PASS-0006',
  accessToken: 'ACCESStoken-0007',
};
const kept = {
  hash_token: 'HASHtoken0000000A1',
  code: 'GHS',
  dial_code: '+233',
};

function har(extra: Record<string, string> = {}): unknown {
  const entry = {
    startedDateTime: '2026-11-22T10:00:00.000Z',
    time: 1,
    request: {
      method: 'POST',
      url: 'https://api.example.com/restapi/v1/payments/processed',
      httpVersion: 'HTTP/1.1',
      headers: [
        { name: 'X-Merchant-Key', value: planted.header },
        { name: 'X-Upstream-Session', value: planted.headerRule },
        { name: 'Accept', value: 'application/json' },
      ],
      cookies: [],
      queryString: [],
      postData: {
        mimeType: 'application/json',
        text: JSON.stringify({
          MerchantKey: planted.pascal,
          'merchant-key': planted.kebab,
          otp_code: planted.otpCode,
          pin: planted.pin,
          pin_code: planted.pinCode,
          passcode: planted.passcode,
          AccessToken: planted.accessToken,
          hash_token: kept.hash_token,
          currency: { code: kept.code, dial_code: kept.dial_code },
          ...extra,
        }),
        params: [{ name: 'merchantKey', value: planted.form }],
      },
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
  return { log: { version: '1.2', creator: { name: 'WebInspector', version: '1' }, entries: [entry] } };
}

/** The trace as the bundle holds it, its HAR written with `extra` fields in the request's body. */
async function bundledTrace(env: Record<string, string>, extra: Record<string, string> = {}) {
  const file = join(tempDir(), 'browser.har');
  writeFileSync(file, JSON.stringify(har(extra)));
  const out = join(tempDir(), 'bundle.tar.gz');
  const r = await mpay(['support', 'bundle', '--trace-file', file, '--out', out], { env });
  expect(r.code, r.stderr).toBe(0);
  const dir = tempDir();
  execFileSync('tar', ['-xzf', out, '-C', dir]);
  const name = readdirSync(dir).find((n) => n.startsWith('trace-1-'))!;
  return readFileSync(join(dir, name), 'utf8');
}

it('secrets are found by their name whatever its spelling; the identifiers a person needs are kept', async () => {
  const trace = await bundledTrace(cliEnv(sb, tempDir()));
  for (const [what, value] of Object.entries(planted)) expect(trace, what).not.toContain(value);
  expect(trace).toContain(kept.hash_token);
  expect(trace).toContain('\\"code\\":\\"GHS\\"');
  expect(trace).toContain('\\"dial_code\\":\\"+233\\"');
  expect(trace).toContain('"name": "X-Merchant-Key"');
});

it("the known secrets are the run's own: another run's key is not scrubbed here, this run's is", async () => {
  const otherKey = 'mk_ANOTHERrunKEY4455';
  // Another run in this process, holding another key (refused by the sandbox: it still held it).
  await mpay(['balances', '--json'], { env: cliEnv(sb, tempDir(), { MPAY_MERCHANT_KEY: otherKey }) });
  const trace = await bundledTrace(cliEnv(sb, tempDir()), {
    note: `another ${otherKey} and ours ${demoMerchant.merchantKey}`,
  });
  expect(trace).toContain(otherKey);
  expect(trace).not.toContain(demoMerchant.merchantKey);
});

it('a word of prose after a scheme\'s name is kept ("Token generated successfully."); a credential after it is not', async () => {
  // --debug of a token generate: the sandbox's message stays whole, the token it made does not appear.
  const env = cliEnv(sb, tempDir());
  const debug = await mpay(['token', '--show', '--debug'], { env });
  expect(debug.code, debug.stderr).toBe(0);
  const token = debug.stdout.trim().split(/\s+/).pop()!;
  expect(token.length).toBeGreaterThan(8);
  expect(debug.stderr).toContain('"message":"Token generated successfully."');
  expect(debug.stderr).not.toContain(token);
  // Credentials this run does not hold, in free text: each kind masked, the prose around them kept.
  const credentials = {
    bearer: 'Zx81kQmB4vTq0sLw',
    basic: 'dXNlcjpwYXNz',
    token: 'e3b0c44298fc1c14',
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
    afterHeader: 'lowercaseonly',
  };
  const trace = await bundledTrace(env, {
    note:
      `Token generated successfully. Bearer tokens expire; Basic information. Sent Bearer ${credentials.bearer}, ` +
      `Basic ${credentials.basic}, Token ${credentials.token}, Bearer ${credentials.jwt}; ` +
      `Authorization: Bearer ${credentials.afterHeader}`,
  });
  for (const [what, value] of Object.entries(credentials)) expect(trace, what).not.toContain(value);
  expect(trace).toContain('Token generated successfully. Bearer tokens expire; Basic information.');
  expect(trace).toContain('Sent Bearer ***, Basic ***, Token ***, Bearer ***; Authorization: Bearer ***');
});
