// #33 item 6: one reading of a keyring mpay cannot use. A profile whose secrets were kept in the keyring (on
// a day it worked), run where no Secret Service answers: whoami, auth status, doctor and a command that
// needs the secrets all say "keyring not available" with the reason, and all exit 9. The real bin/run.js,
// a real sandbox; the session bus is a path where none listens.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { loginArgs, run, sandbox, tempDir } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('whoami, auth status, doctor and balances: "keyring not available" with the reason, exit 9 each', async () => {
  const cfg = tempDir();
  const base = { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off' };
  const login = await run(loginArgs('k', sb.url), {
    env: { ...base, MPAY_MERCHANT_KEY: demoMerchant.merchantKey, MPAY_API_KEY: demoMerchant.apiKey },
  });
  expect(login.code, login.stderr).toBe(0);
  // The profile as a login with a working keyring leaves it: its secrets in the keyring, none in the file.
  const path = join(cfg, 'config.json');
  const config = JSON.parse(readFileSync(path, 'utf8'));
  const { merchantKey: _m, apiKey: _a, ...settings } = config.profiles.k;
  config.profiles.k = { ...settings, secretStore: 'keyring', keyringName: 'Secret Service' };
  writeFileSync(path, JSON.stringify(config));
  const env = { MPAY_CONFIG_DIR: cfg, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(cfg, 'no-bus')}` };
  const reason = /keyring not available: the D-Bus session bus at unix:path=\S+ cannot be reached/;
  for (const args of [['whoami'], ['auth', 'status'], ['doctor'], ['balances']]) {
    const r = await run(args, { env });
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(9);
    expect(r.stdout + r.stderr, args.join(' ')).toMatch(reason);
    expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(/another key|merchant_key_from\s+│?\s*none/);
  }
  const who = await run(['whoami', '--json'], { env });
  expect(who.code).toBe(9);
  expect(who.json()).toMatchObject({ merchant_key_from: 'keyring', problem: expect.stringMatching(reason) });
  const status = await run(['auth', 'status', '--json'], { env });
  expect(status.code).toBe(9);
  expect(status.json().keyring.usable).toBe(false);
});
