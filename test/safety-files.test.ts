// What mpay keeps on disk, and what it does when that goes wrong: a cached token is used only with the
// merchant key that made it; a damaged token cache or config.json gives a clear way out and
// loses nothing. Each case runs the command (in-process, real HTTP to a sandbox), then reads the files.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { noStack, sandbox, tempDir, requestCount } from './helpers.js';
import { mpay as run } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

async function tokenRequests(sb: Sb): Promise<number> {
  return requestCount(sb, 'POST /auth/merchant/token/generate');
}

/** The flags of a login as the demo merchant on a sandbox. */
const loginArgs = (sb: { url: string }) => [
  '--env',
  'sandbox',
  '--base-url',
  sb.url,
  '--merchant-key',
  demoMerchant.merchantKey,
  '--site-id',
  demoMerchant.siteId,
  '--api-key',
  demoMerchant.apiKey,
];

/** A profile logged in as the demo merchant, with credentials stored (not from the environment). */
async function loggedIn(sb: Sb): Promise<{ cfg: string; env: Record<string, string> }> {
  const cfg = tempDir();
  const env = { MPAY_CONFIG_DIR: cfg, MPAY_RETRY_BASE_MS: '20' };
  const login = await run(['login', ...loginArgs(sb), '--json'], { env });
  expect(login.code, login.stderr).toBe(0);
  return { cfg, env };
}

describe('the token cache is keyed by the merchant key', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it("another key in MPAY_MERCHANT_KEY never uses the stored key's token", async () => {
    const { cfg, env } = await loggedIn(sb);
    const tokensFile = readFileSync(join(cfg, 'tokens.json'), 'utf8');
    expect(tokensFile).not.toContain(demoMerchant.merchantKey);
    // Merchant B's key (not one the sandbox knows): it must get its own token, which the API refuses.
    const other = await run(['balances', '--json'], { env: { ...env, MPAY_MERCHANT_KEY: 'mk_merchant_b' } });
    expect(other.code, other.stdout).toBe(3);
    expect(other.json().error.kind).toBe('auth');
    expect(other.json().error.message).toMatch(/Merchant key rejected/);
    // The stored merchant's token is still there and still used: no new token request.
    const sent = await tokenRequests(sb);
    const mine = await run(['balances', '--json'], { env });
    expect(mine.code, mine.stderr).toBe(0);
    expect(await tokenRequests(sb)).toBe(sent);
    expect(readFileSync(join(cfg, 'tokens.json'), 'utf8')).not.toContain('mk_merchant_b');
  });

  it('whoami says which key the cached token belongs to', async () => {
    const { env } = await loggedIn(sb);
    const mine = (await run(['whoami', '--json'], { env })).json();
    expect(mine.cached_token).toBe(true);
    expect(mine.cached_tokens).toEqual([
      { merchant_key_fingerprint: mine.merchant_key_fingerprint, created_at: expect.any(String), used: true },
    ]);
    const other = (
      await run(['whoami', '--json'], { env: { ...env, MPAY_MERCHANT_KEY: 'mk_merchant_b' } })
    ).json();
    expect(other.merchant_key_fingerprint).not.toBe(mine.merchant_key_fingerprint);
    expect(other.cached_token).toBe(false);
    expect(other.cached_tokens).toEqual([
      {
        merchant_key_fingerprint: mine.merchant_key_fingerprint,
        created_at: expect.any(String),
        used: false,
      },
    ]);
    const human = await run(['whoami'], { env });
    expect(human.stdout).toMatch(new RegExp(`yes, made with merchant key ${mine.merchant_key_fingerprint}`));
  });
});

describe('a damaged file gives a clear way out and loses nothing', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('a tokens.json that is not JSON is discarded with one warning, and a new token is used', async () => {
    const { cfg, env } = await loggedIn(sb);
    writeFileSync(join(cfg, 'tokens.json'), '{"default|sandbox|http://x": {"tok');
    const r = await run(['balances', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(Array.isArray(r.json())).toBe(true);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('mpay: warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/token cache .*tokens\.json was damaged .* discarded/);
    expect(() => JSON.parse(readFileSync(join(cfg, 'tokens.json'), 'utf8'))).not.toThrow();
    // doctor does not blame the merchant key for it.
    writeFileSync(join(cfg, 'tokens.json'), 'garbage');
    const doctor = await run(['doctor', '--json'], { env });
    expect(doctor.code, doctor.stdout).toBe(0);
  });

  it('a config.json that is not JSON: every command names it and the way out, exit 9, nothing rewritten; login --force moves it aside', async () => {
    const { cfg, env } = await loggedIn(sb);
    const damaged =
      '{"currentProfile": "default", "profiles": {"default": {"merchantKey": "mk_sandbox_demo",';
    const file = join(cfg, 'config.json');
    writeFileSync(file, damaged);
    for (const args of [
      ['whoami'],
      ['balances'],
      ['history'],
      ['profiles', 'list'],
      ['config', 'set', 'env', 'stage'],
      ['login', '--merchant-key', 'x', '--site-id', '1', '--api-key', 'y', '--no-verify'],
    ]) {
      const r = await run([...args, '--json'], { env });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(9);
      expect(r.json().error.kind).toBe('local');
      expect(r.json().error.message).toContain(`Cannot read ${file}`);
      expect(r.json().error.hint).toMatch(/mpay login --force/);
      expect(noStack(r.stderr)).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(damaged);
    }
    const human = await run(['whoami'], { env });
    expect(human.stderr).toMatch(
      /^mpay: Cannot read .*config\.json \(not valid JSON: .*\); it was left as it is$/m,
    );
    expect(human.stderr).toMatch(/^hint: .*login --force/m);
    // JSON of the wrong shape is damaged too.
    writeFileSync(file, '[1, 2]');
    expect((await run(['whoami', '--json'], { env })).code).toBe(9);
    writeFileSync(file, damaged);

    const forced = await run(['login', '--force', ...loginArgs(sb), '--json'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/moved it aside to .*config\.json\.bak-/);
    const aside = readdirSync(cfg).filter((f) => f.startsWith('config.json.bak-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(cfg, aside[0]!), 'utf8')).toBe(damaged);
    expect((await run(['balances', '--json'], { env })).code).toBe(0);
  });
});

describe('one place builds clients', () => {
  it('login --debug against a server whose answer carries raw escape sequences prints none of them', async () => {
    // An error page with raw ESC and BEL bytes: what a broken proxy or a hostile server can send.
    const server = createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>\u001b]0;pwned\u0007\u001b[31mgateway error\u001b[0m</html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await run(['login', '--debug', ...loginArgs({ url })], {
        env: { MPAY_CONFIG_DIR: tempDir(), MPAY_RETRY_BASE_MS: '5' },
      });
      expect(r.code).toBe(7);
      // The body was shown, with its escapes made visible, and no raw control byte reached the terminal.
      expect(r.stderr).toMatch(/< <html>\\x1b\]0;pwned\\x07\\x1b\[31mgateway error/);
      // eslint-disable-next-line no-control-regex -- the bytes this test looks for
      expect(r.stderr + r.stdout).not.toMatch(/[\u001b\u009b\u0007]/);
      // The factory's client: mpay's user agent, and the retry settings of every other client.
      expect(r.stderr).toMatch(/> user-agent: mpay-cli\/\d/);
      expect(r.stderr.match(/! retry \d/g)).toHaveLength(2);
    } finally {
      server.close();
    }
  });
});
