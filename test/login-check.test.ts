// #33 item 5: login checks what doctor checks. The API key (and site id) go through doctor's API-key check
// (the credentials probe, through the money gate's probe path) before anything is saved: a wrong key is
// refused (exit 3, no profile saved), a good one is said accepted, and on a live server the check is
// skipped (no withdraw initiate sent) with the command that runs it. A real sandbox, the command classes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { requestCount, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const probes = () => requestCount(sb, 'POST /payments/withdraw/initiate');
const login = (
  profile: string,
  env: string,
  apiKey: string,
  cfg: string,
  site: string = demoMerchant.siteId,
) =>
  mpay(['login', '--profile', profile, '--env', env, '--base-url', sb.url, '--site-id', site, '--json'], {
    env: {
      MPAY_CONFIG_DIR: cfg,
      MPAY_KEYRING: 'off',
      MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
      MPAY_API_KEY: apiKey,
    },
  });

it('a wrong API key is refused at login (exit 3) and nothing is saved; a good one is said checked', async () => {
  const cfg = tempDir();
  const before = await probes();
  const wrong = await login('w', 'sandbox', 'ak_wrong', cfg);
  expect(wrong.code, wrong.stderr).toBe(3);
  expect(wrong.json().error.message).toMatch(
    /^The API key check failed: Invalid merchant credentials; nothing was saved$/,
  );
  expect(await probes()).toBe(before + 1);
  const list = await mpay(['profiles', 'list', '--json'], {
    env: { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off' },
  });
  expect(JSON.stringify(list.json())).not.toMatch(/"w"/);
  const site = await login('w', 'sandbox', demoMerchant.apiKey, cfg, '999');
  expect(site.code).toBe(3);
  const good = await login('g', 'sandbox', demoMerchant.apiKey, cfg);
  expect(good.code, good.stderr).toBe(0);
  expect(good.json().api_key).toEqual({
    checked: true,
    detail: expect.stringMatching(/API key accepted by withdraw initiate.*nothing created/),
  });
});

it('on a live server the check is skipped, says so and how to run it, and sends no initiate', async () => {
  const cfg = tempDir();
  const before = await probes();
  const r = await login('l', 'live', demoMerchant.apiKey, cfg);
  expect(r.code, r.stderr).toBe(0);
  expect(r.json().api_key.checked).toBe(false);
  expect(r.json().api_key.detail).toContain(
    `run it with \`mpay doctor --check-api-key --profile l --env live --base-url ${sb.url}\``,
  );
  expect(await probes()).toBe(before);
});
