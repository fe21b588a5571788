import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputs } from '../src/ui/json-schemas.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  sb = await sandbox();
  env = cliEnv(sb, tempDir());
});
afterAll(() => sb.close());

/** Runs a command with --json and checks its document against the named schema. */
async function matches(
  name: keyof typeof outputs,
  args: string[],
  code = 0,
  extra: Record<string, string> = {},
) {
  const r = await mpay([...args, '--json'], { env: { ...env, ...extra }, input: extra.STDIN });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
  const doc = r.json();
  const parsed = outputs[name].safeParse(doc);
  expect(parsed.success, `${args.join(' ')}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  return doc;
}

describe.concurrent('every --json document matches its schema', () => {
  it('the transaction envelope, from every command that touches a transaction', async () => {
    const dep = await matches('transaction', ['deposit', ...customerArgs({ reference: 'js-d' })]);
    expect(dep.status).toBe('pending');
    const wd = await matches('transaction', ['withdraw', ...customerArgs({ reference: 'js-w' })]);
    expect(wd.next).toBe('otp');
    await matches('transaction', ['withdraw', '--resume', 'js-w', '--otp', demoMerchant.otp]);
    const init = await matches('transaction', [
      'deposit',
      'initiate',
      ...customerArgs({ reference: 'js-i', gateway: '' }),
    ]);
    await matches('transaction', ['wallet', init.hash_token, '--gateway', '2']);
    await matches('transaction', ['status', init.hash_token, '--status', 'initiated', '--gateway', '2']);
    await matches('transaction', ['deposit', 'process', init.hash_token]);
    const shown = await matches('transaction', ['history', 'show', 'js-i']);
    expect(shown.steps.length).toBeGreaterThan(3);
  });

  it('lists, doctor, token, whoami, login, the demo', async () => {
    await matches('countries', ['countries']);
    await matches('currencies', ['currencies']);
    await matches('balances', ['balances']);
    await matches('history', ['history']);
    await matches('doctor', ['doctor']);
    await matches('token', ['token']);
    await matches('whoami', ['whoami']);
    await matches(
      'login',
      [
        'login',
        '--base-url',
        sb.url,
        '--env',
        'sandbox',
        '--merchant-key',
        demoMerchant.merchantKey,
        '--site-id',
        '1',
        '--api-key',
        demoMerchant.apiKey,
      ],
      0,
      { MPAY_CONFIG_DIR: tempDir() },
    );
    const demo = await matches('demo', ['demo']);
    expect(demo).toHaveLength(2);
    // Both references in mpay's one style (kind, time, random).
    expect((demo as { reference: string }[]).map((t) => t.reference)).toEqual([
      expect.stringMatching(/^mpay-d-[0-9a-z]+-[0-9a-f]{6}$/),
      expect.stringMatching(/^mpay-w-[0-9a-z]+-[0-9a-f]{6}$/),
    ]);
  });

  it('a failure and a dry run', async () => {
    await matches('error', ['deposit', ...customerArgs({ currency: 'XXX' })], 2);
    await matches('error', ['balances'], 3, { MPAY_MERCHANT_KEY: 'mk_nobody' });
    await matches('dry-run', ['deposit', ...customerArgs({ reference: 'js-dry' }), '--dry-run']);
  });

  it('a document missing a key of the contract fails its schema (the check can fail)', () => {
    expect(outputs.transaction.safeParse({ kind: 'deposit', reference: 'x' }).success).toBe(false);
    expect(
      outputs.error.safeParse({ error: { kind: 'nope', status: null, message: '', fields: {} } }).success,
    ).toBe(false);
  });
});
