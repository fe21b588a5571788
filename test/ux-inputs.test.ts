// What a person types: login checks the merchant key as soon as it is entered; logout forgets tokens (and
// with --all the credentials); an amount too large says it is above the maximum; a phone is put in
// international form with the country's dial code, or refused with an example, and one given by flag is
// not asked for again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '../src/api/client.js';
import { login } from '../src/flows/login/login.js';
import { runPaymentFlow } from '../src/flows/payment/payment.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { Journal } from '../src/journal/journal.js';
import { ConfigStore } from '../src/config/store.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, demoClient, sandbox, tempDir } from './helpers.js';
import { testGate } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

describe.concurrent('login and logout', () => {
  it('a wrong merchant key is caught as soon as it is entered, and asked for again before the site id', async () => {
    const dir = tempDir();
    const store = new ConfigStore({ MPAY_CONFIG_DIR: dir });
    const p = new ScriptedPrompter([
      'sandbox',
      sb.url,
      'mk_wrong',
      demoMerchant.merchantKey,
      '1',
      demoMerchant.apiKey,
    ]);
    const warnings: string[] = [];
    const r = await login(
      { verify: true },
      { store, prompter: p, client: async (req) => new Client(req), warn: (m) => warnings.push(m) },
    );
    expect(p.asked).toEqual([
      'Environment',
      'Base URL of the sandbox API (before /restapi/v1)',
      'Merchant key',
      'Merchant key',
      'Site ID',
      'API key',
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^Merchant key rejected: .*; try again \(2 left\)$/),
      // this process has no D-Bus session: the secrets go to the file, and login says so
      expect.stringMatching(/^no usable keyring \(no D-Bus session bus/),
    ]);
    expect(r).toMatchObject({ verified: true, site_id: '1' });
    expect(store.profile('default')?.merchantKey).toBe(demoMerchant.merchantKey);
  });

  it('logout forgets the cached tokens; --all the credentials too', async () => {
    const dir = tempDir();
    const env = { MPAY_CONFIG_DIR: dir };
    const args = ['--base-url', sb.url, '--env', 'sandbox', '--merchant-key', demoMerchant.merchantKey];
    expect(
      (await mpay(['login', ...args, '--site-id', '1', '--api-key', demoMerchant.apiKey], { env })).code,
    ).toBe(0);
    expect((await mpay(['whoami', '--json'], { env })).json().cached_token).toBe(true);
    const out = await mpay(['logout', '--json'], { env });
    expect(out.json()).toEqual({ profile: 'default', tokens_removed: 1, credentials_removed: false });
    expect((await mpay(['whoami', '--json'], { env })).json().cached_token).toBe(false);
    expect((await mpay(['balances', '--json'], { env })).code).toBe(0);
    const all = await mpay(['logout', '--all'], { env });
    expect(all.stdout).toMatch(/1 cached token removed; merchant key, site id and API key removed/);
    const listed = (await mpay(['profiles', 'list', '--json'], { env })).json();
    expect(listed[0]).toMatchObject({ name: 'default', merchant_key: '', site_id: null, api_key: '' });
    expect((await mpay(['balances', '--json'], { env })).code).toBe(2);
  });
});

describe.concurrent('amounts and phones', () => {
  it('a 20-digit amount is above the maximum; with --force it is still too large to send exactly', async () => {
    const env = cliEnv(sb, tempDir());
    const huge = '12345678901234567890';
    const r = await mpay(['deposit', ...customerArgs({ amount: huge }), '--json'], { env });
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/above the deposit maximum of 50000 GHS/);
    const forced = await mpay(['deposit', ...customerArgs({ amount: huge }), '--force', '--json'], { env });
    expect(forced.code).toBe(2);
    expect(forced.json().error.message).toMatch(/too large to send exactly \(at most 15 digits\)/);
  });

  it("a national or 00 number gets the country's dial code; one with no country code is refused with an example", async () => {
    const env = cliEnv(sb, tempDir());
    const national = await mpay(
      ['deposit', ...customerArgs({ phone: '020 123 4567', reference: 'ph-1' }), '--json'],
      { env },
    );
    expect(national.code, national.stderr).toBe(0);
    expect(national.stderr).toContain('phone 020 123 4567 is +233201234567 (numbering plan of GH)');
    expect(sb.state.list().find((t) => t.reference === 'ph-1')?.customer.phone).toBe('+233201234567');
    const intl = await mpay(
      ['deposit', ...customerArgs({ phone: '00233201234567', reference: 'ph-2' }), '--json'],
      { env },
    );
    expect(intl.code).toBe(0);
    expect(sb.state.list().find((t) => t.reference === 'ph-2')?.customer.phone).toBe('+233201234567');
    // by Ghana's plan a number without its trunk 0 is national too; one the plan makes impossible is
    // refused with an example of the country's own
    const bare = await mpay(
      ['deposit', ...customerArgs({ phone: '201234567', reference: 'ph-3' }), '--json'],
      { env },
    );
    expect(bare.code, bare.stdout).toBe(0);
    expect(sb.state.list().find((t) => t.reference === 'ph-3')?.customer.phone).toBe('+233201234567');
    const impossible = await mpay(
      ['deposit', ...customerArgs({ phone: '0201234', reference: 'ph-5' }), '--json'],
      { env },
    );
    expect(impossible.code).toBe(2);
    expect(impossible.json().error.message).toMatch(
      /not a possible phone number of GH: e\.g\. \+233\d{9}, or national as 0\d\d \d{3} \d{4}$/,
    );
    // In the North American plan (+1) no number starts with 0: a national-looking one is not made +1…
    const us = await mpay(
      [
        'deposit',
        ...customerArgs({
          currency: 'USD',
          country: '',
          gateway: '2',
          phone: '0201234567',
          reference: 'ph-4',
        }),
        '--json',
      ],
      { env },
    );
    expect(us.code, us.stdout).toBe(2);
    expect(us.json().error.message).toMatch(
      /not a possible phone number of US: e\.g\. \+1\d{10}, or national as \(\d{3}\) \d{3}-\d{4}$/,
    );
    expect(sb.state.list().find((t) => t.reference === 'ph-4')).toBeUndefined();
  });

  it("processed sends the phone in international form: the customer's as normalized, a national --phone-number with the dial code", async () => {
    const dir = tempDir();
    const env = cliEnv(sb, dir);
    /** The phone_number of the processed request in a --trace file. */
    const sent = (trace: string) => {
      const entries = JSON.parse(readFileSync(trace, 'utf8')).log.entries as Array<{
        request: { url: string; postData?: { text: string } };
      }>;
      const processed = entries.find((e) => e.request.url.endsWith('/payments/processed'))!;
      return JSON.parse(processed.request.postData!.text).phone_number as string;
    };
    const a = join(dir, 'a.har');
    const national = await mpay(
      ['deposit', ...customerArgs({ phone: '020 123 4567', reference: 'ph-p1' }), '--trace', a, '--json'],
      { env },
    );
    expect(national.code, national.stderr).toBe(0);
    expect(sent(a)).toBe('+233201234567');
    const b = join(dir, 'b.har');
    const other = await mpay(
      [
        'deposit',
        ...customerArgs({ reference: 'ph-p2', 'phone-number': '020 765 4321' }),
        '--trace',
        b,
        '--json',
      ],
      { env },
    );
    expect(other.code, other.stderr).toBe(0);
    expect(sent(b)).toBe('+233207654321');
    // One read of the merchant currencies for the whole flow, the dial code included.
    const gets = (
      JSON.parse(readFileSync(b, 'utf8')).log.entries as Array<{ request: { url: string } }>
    ).filter((e) => e.request.url.endsWith('/merchant/currencies'));
    expect(gets).toHaveLength(1);
    // Resumed after initiate, with a national payment phone: the dial code comes from one read.
    const started = await mpay(
      ['deposit', 'initiate', ...customerArgs({ reference: 'ph-p3', gateway: '' }), '--json'],
      { env },
    );
    expect(started.code, started.stderr).toBe(0);
    const c = join(dir, 'c.har');
    const resumed = await mpay(
      [
        'deposit',
        '--resume',
        'ph-p3',
        '--gateway',
        '1',
        '--phone-number',
        '020 765 4321',
        '--trace',
        c,
        '--json',
      ],
      { env },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sent(c)).toBe('+233207654321');
  });

  it('with every value given by flag nothing is asked, not even the optional ones; one missing, they are', async () => {
    /** A deposit flow on a (scripted) terminal with these inputs; returns what was asked. */
    const deposit = async (inputs: Record<string, string>, answers: string[]) => {
      const p = new ScriptedPrompter(answers);
      const r = await runPaymentFlow(
        'deposit',
        {
          currency: 'GHS',
          country: 'GH',
          firstName: 'Ama',
          phone: '+233201234567',
          email: 'ama@example.com',
          gateway: 1,
          ...inputs,
        },
        {
          client: demoClient(sb.url),
          journal: new Journal(tempDir(), 'default', 'sandbox'),
          prompter: p,
          env: 'sandbox',
          gate: testGate('sandbox', { prompter: p }),
        },
      );
      expect(r.status).toBe('pending');
      return p.asked;
    };
    // Not the phone again at processed, nor the confirmation e-mail (optional), on a terminal too.
    expect(await deposit({ amount: '10', lastName: 'M', reference: 'ph-flag' }, [])).toEqual([]);
    // Without --amount the person is being asked anyway: the optional values are asked as well.
    expect(await deposit({}, ['12', '', '', ''])).toEqual([
      'Amount in GHS (1–50000)',
      'Customer last name (optional)',
      'Reference (customer_transaction_id)',
      'Also send the confirmation to this e-mail (optional; Enter to skip)',
    ]);
  });
});

it('without a terminal, an unknown currency is named in the same error as the missing flags, --gateway among them', async () => {
  const own = await sandbox();
  try {
    const r = await mpay(['deposit', '--currency', 'ZZZ', '--amount', '1', '--no-input', '--json'], {
      env: cliEnv(own, tempDir()),
    });
    expect(r.code).toBe(2);
    expect(r.json().error.message).toBe(
      "Missing --first-name, --phone, --email, --gateway; and --currency ZZZ is not one of the merchant's currencies",
    );
    expect(r.json().error.fields.gateway_id).toEqual(['required']);
    expect(own.state.list()).toHaveLength(0);
    expect(r.json().error.fields.currency_code[0]).toMatch(
      /^ZZZ is not one of the merchant's currencies \(GHS, /,
    );
  } finally {
    await own.close();
  }
});
