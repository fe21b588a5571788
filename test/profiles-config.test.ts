// Profiles and their settings, as a user changes them: `config set <env>.base_url none`, `profiles remove`
// without a terminal, and the live-login warning on a server another profile keeps as its sandbox.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { loginArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const keys = { MPAY_MERCHANT_KEY: demoMerchant.merchantKey, MPAY_API_KEY: demoMerchant.apiKey };

it.concurrent('config set <env>.base_url none unsets it: the default again, or none', async () => {
  const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off' };
  expect((await mpay(loginArgs('p', sb.url), { env: { ...env, ...keys } })).code).toBe(0);
  expect((await mpay(['config', 'set', 'stage.base_url', 'https://stage.example.com'], { env })).code).toBe(
    0,
  );
  const unset = await mpay(['config', 'set', 'stage.base_url', 'none', '--json'], { env });
  expect(unset.code, unset.stderr).toBe(0);
  expect(unset.json()).toMatchObject({ key: 'stage.base_url', value: null });
  const sandboxUnset = await mpay(['config', 'set', 'sandbox.base_url', 'none'], { env });
  expect(sandboxUnset.stdout + sandboxUnset.stderr).toMatch(
    /unset \(the default http:\/\/127\.0\.0\.1:4010 is used\)/,
  );
  const all = (await mpay(['config', 'list', '--json'], { env })).json();
  expect(all['stage.base_url']).toBeNull();
  expect(all['sandbox.base_url']).toBe('http://127.0.0.1:4010');
});

it.concurrent(
  'profiles remove without --yes and without a terminal is refused (exit 2), and keeps the profile',
  async () => {
    const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off' };
    // (in this process, which has no terminal either: memoryIO's streams are not one)
    expect((await mpay(loginArgs('gone', sb.url), { env: { ...env, ...keys } })).code).toBe(0);
    const r = await mpay(['profiles', 'remove', 'gone'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Not removed: removing profile gone takes its credentials with it/);
    expect(r.stderr).toMatch(/--yes/);
    expect((await mpay(['profiles', 'list', '--json'], { env })).stdout).toMatch(/"gone"/);
    const yes = await mpay(['profiles', 'remove', 'gone', '--yes'], { env });
    expect(yes.code, yes.stderr).toBe(0);
  },
);

it.concurrent(
  "a live login on another profile's sandbox server warns that it is live for every profile from now on",
  async () => {
    const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off', ...keys };
    expect((await mpay(loginArgs('dev', sb.url), { env })).code).toBe(0);
    const live = await mpay(
      ['login', '--profile', 'prod', '--env', 'live', '--base-url', sb.url, '--site-id', '1', '--no-verify'],
      { env },
    );
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr.replace(/\n\s+/g, ' ')).toContain(
      `${sb.url} is profile dev's sandbox server; as profile prod's live server it is live from now on for every profile`,
    );
    const other = await mpay(
      [
        'login',
        '--profile',
        'prod2',
        '--env',
        'live',
        '--base-url',
        'https://api.example.com',
        '--site-id',
        '1',
        '--no-verify',
      ],
      { env },
    );
    expect(other.stderr).not.toMatch(/is profile .*'s sandbox server/);
  },
);

it.concurrent(
  'no such warning on the default sandbox URL, which every profile shares as its local sandbox',
  async () => {
    const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off', ...keys };
    const at = (profile: string, ...more: string[]) =>
      mpay(['login', '--profile', profile, '--site-id', '1', '--no-verify', ...more], { env });
    // one profile keeps it as its sandbox, another stores none (the default is its sandbox all the same)
    expect((await at('dev', '--env', 'sandbox', '--base-url', 'http://127.0.0.1:4010')).code).toBe(0);
    expect((await at('ops', '--env', 'stage', '--base-url', 'https://stage.example.com')).code).toBe(0);
    for (const url of ['http://127.0.0.1:4010', 'http://localhost:4010/']) {
      const live = await at('prod', '--env', 'live', '--base-url', url);
      expect(live.code, live.stderr).toBe(0);
      expect(live.stderr).not.toMatch(/warning/);
    }
  },
);
