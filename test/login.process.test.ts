// A login never silently changes an existing profile (#47 item 4): without --profile it writes the current
// profile and says so first; a new default environment, or another base URL for an environment, is asked
// on a terminal and needs --force without one; --json says which profile changed and what it held before.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { runPrinted, sandbox, tempDir } from './helpers.js';
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

it('a second login without --profile leaves a live profile as it was, and says what it would change', async () => {
  const cfg = tempDir();
  const live = 'https://api.example.com';
  expect((await login(cfg, '--profile', 'live', '--env', 'live', '--base-url', live)).code).toBe(0);
  const second = await login(cfg, '--env', 'sandbox', '--base-url', sb.url, '--json');
  expect(second.code, second.stderr).toBe(2);
  expect(second.stderr).toMatch(/^Logging in to profile live, the current one/);
  const error = second.json().error;
  expect(error.message).toBe(
    `This login changes profile live: its environment from live (${live}) to sandbox; nothing was saved`,
  );
  expect(error.hint).toMatch(/--force/);
  // the profile is as it was
  const who = await mpay(['whoami', '--json'], { env: envOf(cfg) });
  expect(who.json()).toMatchObject({ profile: 'live', env: 'live', base_url: live });
  // the command the hint names, pasted where the variables point elsewhere, lists the profiles
  const listed = await runPrinted(/`(mpay profiles list)`/.exec(error.hint)![1]!, {
    MPAY_CONFIG_DIR: cfg,
    MPAY_KEYRING: 'off',
    HOME: tempDir(),
  });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(/live/);
  // another base URL for the same environment is a change too
  const moved = await login(cfg, '--env', 'live', '--base-url', 'https://api2.example.com', '--json');
  expect(moved.code).toBe(2);
  expect(moved.json().error.message).toMatch(
    /its live server from https:\/\/api\.example\.com to https:\/\/api2/,
  );
  // the same server by another spelling is no change
  const same = await login(cfg, '--env', 'live', '--base-url', `${live}/restapi/v1`, '--json');
  expect(same.code, same.stderr).toBe(0);
  expect(same.json().profile_before).toEqual({ env: 'live', base_urls: { live } });
});

it('no usable keyring is said at the first login of a config folder, not at every one; auth status says it again', async () => {
  const cfg = tempDir();
  // no D-Bus session in these variables: no keyring works, and the secrets go to the folder's files
  const env = {
    MPAY_CONFIG_DIR: cfg,
    MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
    MPAY_API_KEY: demoMerchant.apiKey,
  };
  const once = (profile: string) =>
    mpay(
      [
        'login',
        '--profile',
        profile,
        '--env',
        'sandbox',
        '--base-url',
        sb.url,
        '--site-id',
        '1',
        '--no-verify',
      ],
      {
        env,
      },
    );
  const first = await once('ci');
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toMatch(
    /no usable keyring \(.*said once for this config folder: `mpay auth status` says it again/s,
  );
  for (const profile of ['ci', 'ci2']) {
    const again = await once(profile);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/no usable keyring/);
  }
  const status = await runPrinted('mpay auth status', { MPAY_CONFIG_DIR: cfg, HOME: tempDir() });
  expect(status.stdout).toMatch(/Keyring: .*(not available|cannot be used|did not)/i);
  expect(status.stdout).toMatch(/\nci \((current, )?sandbox\)\n.* in \S+config\.json/);
  // another folder is told again
  const other = await mpay(
    ['login', '--env', 'sandbox', '--base-url', sb.url, '--site-id', '1', '--no-verify'],
    {
      env: { ...env, MPAY_CONFIG_DIR: tempDir() },
    },
  );
  expect(other.stderr).toMatch(/no usable keyring/);
});
