// --trace FILE: every request and response of a run as HAR 1.2, valid by the HAR schema (har-validator),
// with timings, and without any secret the run used: merchant key, API key, bearer token, one-time code,
// the gateways' api_key and api_user.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: no type declarations
import harValidator from 'har-validator';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, requestCounts, sandbox, setFaults, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('a deposit and a withdrawal with its code, traced: a valid HAR, with timings, and no secret in it', async () => {
  const cfg = tempDir();
  const file = join(tempDir(), 'run.har');
  // A phone number that does not contain the demo code, so that a search for the code means something.
  const args = customerArgs({ phone: '+233209876540' });
  const env = cliEnv(sb, cfg);
  expect((await mpay(['deposit', ...args, '--reference', 'tr-d', '--trace', file], { env })).code).toBe(0);
  const w = await mpay(
    ['withdraw', ...args, '--reference', 'tr-w', '--otp', demoMerchant.otp, '--trace', file],
    { env },
  );
  expect(w.code, w.stderr).toBe(0);
  const har = JSON.parse(readFileSync(file, 'utf8'));
  await expect(harValidator.har(har)).resolves.toBeTruthy();
  const urls = har.log.entries.map(
    (e: { request: { method: string; url: string } }) =>
      `${e.request.method} ${new URL(e.request.url).pathname}`,
  );
  // The second run's calls follow the first's in the one file: merchant list, initiate, status, processed
  // (code sent), processed (code).
  expect(urls.slice(-5)).toEqual([
    'GET /restapi/v1/merchant/currencies',
    'POST /restapi/v1/payments/withdraw/initiate',
    'POST /restapi/v1/payments/status/update',
    'POST /restapi/v1/payments/withdraw/processed',
    'POST /restapi/v1/payments/withdraw/processed',
  ]);
  for (const e of har.log.entries) expect(e.response.status).toBe(200);
  const text = readFileSync(file, 'utf8');
  const token = Object.values(
    JSON.parse(readFileSync(join(cfg, 'tokens.json'), 'utf8')) as Record<string, { token: string }>,
  )[0]!.token;
  for (const secret of [demoMerchant.merchantKey, demoMerchant.apiKey, token, demoMerchant.otp])
    expect(text, secret).not.toContain(secret);
  expect(text).toContain('Bearer ***');
  // The gateways' api_key and api_user (placeholders in the sandbox) are redacted too.
  expect(text).not.toMatch(/\\"api_(key|user)\\":\\"[^*]/);
  expect(text).toMatch(/\\"api_user\\":\\"\*\*\*\\"/);
});

it('each entry carries the exchange’s own timings: the wait at least the server’s delay, the time their sum', async () => {
  // A sandbox that holds every answer 60 ms: each exchange's wait for its first byte is at least that
  // long, whatever the machine's speed (a lower bound only; the test never waits on a clock itself).
  const slow = await sandbox({ latencyMs: 60 });
  try {
    const file = join(tempDir(), 'timed.har');
    const before = Date.now();
    const r = await mpay(['currencies', '--trace', file], { env: cliEnv(slow, tempDir()) });
    expect(r.code, r.stderr).toBe(0);
    const after = Date.now();
    const har = JSON.parse(readFileSync(file, 'utf8'));
    expect(har.log.entries.length).toBeGreaterThan(0);
    for (const e of har.log.entries) {
      const t = e.timings as Record<string, number>;
      expect(t.wait, JSON.stringify(t)).toBeGreaterThanOrEqual(55);
      expect(t.send).toBeGreaterThanOrEqual(0);
      expect(t.receive).toBeGreaterThanOrEqual(0);
      // HAR 1.2: the entry's time is the sum of its timings, those not known (-1) left out
      const sum = Object.values(t)
        .filter((v) => v >= 0)
        .reduce((a, b) => a + b, 0);
      expect(e.time).toBe(sum);
      const started = Date.parse(e.startedDateTime);
      expect(started).toBeGreaterThanOrEqual(before);
      expect(started + e.time).toBeLessThanOrEqual(after);
    }
  } finally {
    await slow.close();
  }
});

it('a failed exchange is traced too (no response), and MPAY_TRACE works like the flag', async () => {
  const file = join(tempDir(), 'fail.har');
  await setFaults(sb, { faults: ['drop'], rate: 1, faultPaths: ['/public/countries'] });
  const r = await mpay(['countries'], {
    env: cliEnv(sb, tempDir(), { MPAY_TRACE: file, MPAY_RETRY_BASE_MS: '1' }),
  });
  await setFaults(sb, { rate: 0 });
  expect(r.code).toBe(8);
  const har = JSON.parse(readFileSync(file, 'utf8'));
  await expect(harValidator.har(har)).resolves.toBeTruthy();
  expect(har.log.entries).toHaveLength(3);
  expect(har.log.entries[0]).toMatchObject({
    response: { status: 0 },
    _error: expect.stringMatching(/socket hang up|ECONNRESET/),
  });
});

it('--trace beside --debug: both see every exchange', async () => {
  const file = join(tempDir(), 'both.har');
  const r = await mpay(['countries', '--debug', '--trace', file], { env: cliEnv(sb, tempDir()) });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/^< 200 OK/m);
  expect(JSON.parse(readFileSync(file, 'utf8')).log.entries).toHaveLength(1);
});

describe('--trace FILE on a file that is there', () => {
  it('three commands with the same --trace leave all their calls in it, in order', async () => {
    const file = join(tempDir(), 'three.har');
    const env = cliEnv(sb, tempDir());
    const before = await requestCounts(sb);
    const runs = [
      ['countries', '--trace', file],
      ['deposit', ...customerArgs(), '--reference', `tr3-${Date.now()}`, '--trace', file],
      ['currencies', '--trace', file],
    ];
    const lengths: number[] = [];
    for (const argv of runs) {
      const r = await mpay(argv, { env });
      expect(r.code, r.stderr).toBe(0);
      lengths.push(JSON.parse(readFileSync(file, 'utf8')).log.entries.length);
    }
    const har = JSON.parse(readFileSync(file, 'utf8'));
    await expect(harValidator.har(har)).resolves.toBeTruthy();
    const paths = har.log.entries.map(
      (e: { request: { url: string } }) => new URL(e.request.url).pathname.split('/restapi/v1/')[1],
    );
    // every call the sandbox received in these three runs is in the file, the first run's first
    const after = await requestCounts(sb);
    const sent = Object.keys(after).reduce((n, k) => n + after[k]! - (before[k] ?? 0), 0);
    expect(har.log.entries).toHaveLength(sent);
    expect(lengths[0]).toBe(1);
    expect(lengths[1]).toBeGreaterThan(lengths[0]!);
    expect(lengths[2]).toBe(lengths[1]! + 1);
    expect(paths[0]).toBe('public/countries');
    expect(paths.at(-1)).toBe('public/currencies');
  });

  it.each([
    ['a browser HAR', JSON.stringify({ log: { creator: { name: 'WebInspector' }, entries: [] } })],
    ['a document', 'my notes, not a trace\n'],
    ['JSON of another kind', '{"log": {"creator": {"name": "mpay"}}}'],
  ])('%s there is refused before anything is sent, and left as it was', async (_what, text) => {
    const file = join(tempDir(), 'theirs.har');
    writeFileSync(file, text);
    const before = await requestCounts(sb);
    const r = await mpay(['countries', '--trace', file], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Nothing was sent');
    expect(r.stderr).toContain('Give --trace a new file name');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(await requestCounts(sb)).toEqual(before);
  });
});
