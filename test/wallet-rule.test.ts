// The wallet rule against both sandbox data sets: `demo`, written in the spec's spellings, and `alt`, the
// same kinds of gateway with other ids, names, payment methods, numbers as strings, nulls and extra fields
// (an id 2 that is mobile money). Each data set says, for itself, which gateways need the wallet update;
// the sandbox refuses a status update that skips it. So every flow below completes only if the rule found
// exactly the gateways that need it, from the records as the API sent them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway, MerchantService } from '../src/api/schemas.js';
import { runPaymentFlow } from '../src/flows/payment/payment.js';
import { walletReason } from '../src/flows/payment/wallet-rule.js';
import { Journal } from '../src/journal/journal.js';
import { altSeed } from '../src/sandbox/seed-alt.js';
import { demoMerchant, demoSeed, type Seed } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir, demoClient } from './helpers.js';
import { testGate } from './helpers.js';
import { mpay as run } from './in-process.js';
import { otpOf } from '../src/flows/payment/inputs.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
const seeds: Array<[string, Seed]> = [
  ['demo', demoSeed],
  ['alt', altSeed],
];

describe.each(seeds)('the wallet rule on the %s data set', (name, seed) => {
  it('names exactly the gateways that need the update, from the records as sent', () => {
    const services = [MerchantService.parse(seed.service)];
    const found = seed.gateways.map((g) => [
      g.record.name,
      Boolean(walletReason(Gateway.parse(g.record), { services })),
    ]);
    const truth = seed.gateways.map((g) => [g.record.name, g.walletRequired]);
    expect(found).toEqual(truth);
    expect(truth.some(([, w]) => w)).toBe(true);
    expect(truth.some(([, w]) => !w)).toBe(true);
  });

  describe('every gateway of every currency, deposit and withdraw, over HTTP', () => {
    let sb: Sb;
    beforeAll(async () => {
      sb = await sandbox({ seed: name as 'demo' | 'alt' });
    });
    afterAll(() => sb.close());

    const cases = seed.currencies.flatMap((c) => [
      ...(c.limits.deposite ? c.collection.map((id) => ['deposit', c, id] as const) : []),
      ...(c.limits.withdraw ? c.disbursement.map((id) => ['withdraw', c, id] as const) : []),
    ]);
    it.each(
      cases.map(([kind, c, id]) => [`${kind} ${c.currency.code} by gateway ${id}`, kind, c, id] as const),
    )('%s', async (_title, kind, c, id) => {
      const client = demoClient(sb.url);
      const amount = kind === 'deposit' ? c.currency.minimum_deposite : c.limits.min_withdraw;
      const r = await runPaymentFlow(
        kind,
        {
          currency: c.currency.code,
          country: c.currency.country!.code,
          amount: String(amount),
          firstName: 'Ama',
          lastName: 'Mensah',
          phone: '+233201234567',
          email: 'ama@example.com',
          gateway: id,
          otp: otpOf(demoMerchant.otp),
        },
        {
          client,
          journal: new Journal(tempDir(), 'default', 'sandbox'),
          env: 'sandbox',
          gate: testGate('sandbox'),
        },
      );
      const gw = seed.gateways.find((g) => g.id === id)!;
      expect(r.status).toBe('pending');
      expect(Boolean(r.wallet)).toBe(gw.walletRequired);
    });
  });
});

describe.concurrent('the alt data set through the CLI, and the profile list that settles the rule', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox({ seed: 'alt' });
  });
  afterAll(() => sb.close());

  const ghs = (gateway: string, reference: string) =>
    customerArgs({ currency: 'GHS', country: 'GH', amount: '20', gateway, reference });

  it('id 2 is mobile money here (no wallet update), and the platform-named wallet gets one', async () => {
    const env = cliEnv(sb, tempDir());
    const two = await run(['deposit', ...ghs('2', 'alt-2'), '--json'], { env });
    expect(two.code, two.stderr).toBe(0);
    expect(two.json().data.wallet).toBeUndefined();
    const kora = await run(['deposit', ...ghs('31', 'alt-31')], { env });
    expect(kora.code, kora.stderr).toBe(0);
    expect(kora.stderr).toMatch(/Wallet address update \(service\)/);
  });

  it('config set <env>.wallet_gateways settles it, doctor shows it, and "none" gives the rule back', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const byRule = (await run(['doctor', '--json'], { env })).json();
    const ruleCheck = byRule.checks.find((c: { name: string }) => c.name === 'wallet gateways');
    expect(ruleCheck.detail).toMatch(/^by the built-in rule: /);
    expect(ruleCheck.detail).toContain('31 Kora Balance (service)');
    expect(ruleCheck.detail).toContain('42 Tether USD (usdt-trc20)');
    expect(ruleCheck.detail).not.toContain('2 Vodafone Cash');

    const set = await run(['config', 'set', 'sandbox.wallet_gateways', '14, 99'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect((await run(['config', 'get', 'wallet_gateways'], { env })).stdout.trim()).toBe('14,99');
    const listed = (await run(['doctor', '--json'], { env })).json();
    expect(listed.checks.find((c: { name: string }) => c.name === 'wallet gateways').detail).toBe(
      "from the profile's list for sandbox: 14 Airtel Money; not open to this merchant: 99",
    );
    // Listed: Airtel gets a wallet update the rule would not give it.
    const airtel = await run(['deposit', ...ghs('14', 'alt-14'), '--json'], { env });
    expect(airtel.code, airtel.stderr).toBe(0);
    expect(airtel.json().data.wallet).toBeDefined();
    // Not listed: Kora gets none, and the sandbox refuses the status update that should have followed one.
    const kora = await run(['deposit', ...ghs('31', 'alt-31-listed'), '--json'], { env });
    expect(kora.code).toBe(4);
    expect(Object.keys(kora.json().error.fields)).toEqual(['wallet_address']);

    expect((await run(['config', 'set', 'wallet_gateways', 'none'], { env })).code).toBe(0);
    expect((await run(['config', 'get', 'sandbox.wallet_gateways', '--json'], { env })).json()).toEqual({
      'sandbox.wallet_gateways': null,
    });
    const bad = await run(['config', 'set', 'wallet_gateways', '2,five', '--json'], { env });
    expect(bad.code).toBe(2);
    expect(bad.json().error.message).toBe('Invalid gateway list "2,five"');
  });
});
