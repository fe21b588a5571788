// #33 item 6: one reading of a keyring mpay cannot use. A profile whose secrets were kept in the keyring (on
// a day it worked), run where no Secret Service answers: whoami, auth status, doctor and a command that
// needs the secrets all say "keyring not available" with the reason, and all exit 9. A real sandbox; the
// session bus is a path where none listens. The real bin/run.js for one command (a process's own exit
// code), the others in-process (test/in-process.ts) and at once: what is checked is what they say.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { loginArgs, run, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('whoami, auth status, doctor and balances: "keyring not available" with the reason, exit 9 each', async () => {
  const cfg = tempDir();
  const base = { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off' };
  const login = await mpay(loginArgs('k', sb.url), {
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
  const commands = [['whoami'], ['auth', 'status'], ['doctor'], ['balances']];
  const [who, status, ...runs] = await Promise.all([
    mpay(['whoami', '--json'], { env }),
    mpay(['auth', 'status', '--json'], { env }),
    ...commands.map((args, i) => (i === 0 ? run(args, { env }) : mpay(args, { env }))),
  ]);
  runs.forEach((r, i) => {
    const args = commands[i]!;
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(9);
    expect(r.stdout + r.stderr, args.join(' ')).toMatch(reason);
    expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(/another key|merchant_key_from\s+│?\s*none/);
  });
  expect(who!.code).toBe(9);
  expect(who!.json()).toMatchObject({ merchant_key_from: 'keyring', problem: expect.stringMatching(reason) });
  expect(status!.code).toBe(9);
  expect(status!.json().keyring.usable).toBe(false);
});
