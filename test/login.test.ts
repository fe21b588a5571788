// A login never silently changes an existing profile (#47 item 4): without --profile it writes the current
// profile and says so first; a new default environment, or another base URL for an environment, is asked
// on a terminal and needs --force without one; --json says which profile changed and what it held before.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CancelledError, UsageError } from '../src/common/errors.js';
import { keepOrChange } from '../src/flows/login/login.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const envOf = (cfg: string) => ({
  MPAY_CONFIG_DIR: cfg,
  MPAY_KEYRING: 'off',
  MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
  MPAY_API_KEY: demoMerchant.apiKey,
});
const login = (cfg: string, ...args: string[]) =>
  mpay(['login', '--site-id', demoMerchant.siteId, '--no-verify', ...args], { env: envOf(cfg) });

it('with --force the change is made, and --json says which profile changed and what it held before', async () => {
  const cfg = tempDir();
  expect(
    (await login(cfg, '--profile', 'p', '--env', 'stage', '--base-url', 'https://stage.example.com')).code,
  ).toBe(0);
  const r = await login(cfg, '--env', 'sandbox', '--base-url', sb.url, '--force', '--json');
  expect(r.code, r.stderr).toBe(0);
  expect(r.json()).toMatchObject({
    profile: 'p',
    env: 'sandbox',
    profile_before: { env: 'stage', base_urls: { stage: 'https://stage.example.com' } },
  });
  const fresh = await login(
    tempDir(),
    '--profile',
    'new',
    '--env',
    'sandbox',
    '--base-url',
    sb.url,
    '--json',
  );
  expect(fresh.json().profile_before).toBeNull();
  const text = await login(cfg, '--env', 'stage', '--base-url', 'https://stage.example.com', '--force');
  expect(text.stdout).toMatch(
    /^Logged in: profile p, stage at https:\/\/stage\.example\.com \(its environment was sandbox\)/,
  );
});

it('on a terminal the change is asked, and no keeps the profile as it was', async () => {
  const held = { env: 'live' as const, baseUrls: { live: 'https://api.example.com' } };
  const no = new ScriptedPrompter([false]);
  await expect(keepOrChange('live', held, 'sandbox', sb.url, { verify: false }, no)).rejects.toBeInstanceOf(
    CancelledError,
  );
  expect(no.asked).toEqual([
    'This login changes profile live: its environment from live (https://api.example.com) to sandbox. Change it?',
  ]);
  const yes = new ScriptedPrompter([true]);
  await expect(
    keepOrChange('live', held, 'sandbox', sb.url, { verify: false }, yes),
  ).resolves.toBeUndefined();
  await expect(
    keepOrChange('live', held, 'sandbox', sb.url, { verify: false }, undefined),
  ).rejects.toBeInstanceOf(UsageError);
  // a new environment's first server, and the same one again, are no change
  await expect(
    keepOrChange('live', held, 'live', 'https://api.example.com', { verify: false }, undefined),
  ).resolves.toBeUndefined();
  await expect(
    keepOrChange('x', {}, 'sandbox', sb.url, { verify: false }, undefined),
  ).resolves.toBeUndefined();
});
