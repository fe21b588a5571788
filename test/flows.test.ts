// The deposit and withdraw flows: through scripted Prompter answers, and as commands without a terminal,
// with flags and --json (in-process: the real command classes, real HTTP); every single step; resume after
// a stop at each step; the live confirmation; the spec's error rows reached from the flows; the wallet
// rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../src/journal/journal.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { runPaymentFlow } from '../src/flows/payment/payment.js';
import type { FlowDeps } from '../src/flows/types.js';
import { walletReason } from '../src/flows/payment/wallet-rule.js';
import { Gateway } from '../src/api/schemas.js';
import { demoMerchant, gateways } from '../src/sandbox/seed.js';
import {
  cliEnv,
  customerArgs,
  noStack,
  requestCounts,
  sandbox,
  setFaults,
  tempDir,
  demoClient,
} from './helpers.js';
import { testGate } from './helpers.js';
import { mpay as run } from './in-process.js';
import { otpOf, parseInputs } from '../src/flows/payment/inputs.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

function deps(sb: { url: string }, prompter?: ScriptedPrompter, over: Partial<FlowDeps> = {}): FlowDeps {
  return {
    client: demoClient(sb.url),
    journal: new Journal(tempDir(), 'default', 'sandbox'),
    prompter,
    env: 'sandbox',
    ...over,
    gate: over.gate ?? testGate(over.env ?? 'sandbox', { prompter }),
  };
}

/** The flows' customer flags: a GHS deposit of 25 to Ama Mensah by gateway 1 unless told otherwise. */
const customerFlags = (over: Record<string, string> = {}) =>
  customerArgs({ amount: '25', 'last-name': 'Mensah', ...over });

describe('flows with scripted Prompter answers', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('a deposit answered prompt by prompt: currency, amount, customer, reference, gateway, wallet, processed', async () => {
    // USD in the seed list; USDT (TRC20) needs the wallet address update.
    const p = new ScriptedPrompter([
      'USD',
      '100',
      'Ama',
      'Mensah',
      '+15551234567',
      'ama@example.com',
      'script-dep-1',
      '5',
      '',
      'ops@example.com',
    ]);
    const d = deps(sb, p);
    const r = await runPaymentFlow('deposit', {}, { ...d, prompter: wrapSelect(p) });
    expect(p.done).toBe(true);
    expect(p.asked).toEqual([
      'Currency',
      'Amount in USD (1–10000)',
      'Customer first name',
      'Customer last name (optional)',
      'Customer phone (+1…, or national: (201) 555-0123)',
      'Customer e-mail',
      'Reference (customer_transaction_id)',
      'Gateway',
      'Phone number for the payment',
      'Also send the confirmation to this e-mail (optional; Enter to skip)',
    ]);
    expect(r).toMatchObject({
      kind: 'deposit',
      reference: 'script-dep-1',
      status: 'pending',
      gateway: { id: 5 },
    });
    expect(r.wallet?.wallet_address).toMatch(/^T/);
    expect(r.transaction?.currency_code).toBe('USDT');
    const steps = d.journal.find('script-dep-1')!.steps.map((s) => `${s.step}:${s.outcome}`);
    expect(steps).toEqual(['initiate:ok', 'gateway:ok', 'wallet:ok', 'status:ok', 'processed:ok']);
  });

  it('a withdrawal with a wrong code first, then the right one', async () => {
    const p = new ScriptedPrompter([
      'GHS',
      '30',
      'Kofi',
      '',
      '+233201234567',
      'kofi@example.com',
      'script-wd-1',
      '3',
      '',
      '000000',
      demoMerchant.otp,
    ]);
    const d = deps(sb, p);
    const before = sb.state.balance('GHS')!;
    const r = await runPaymentFlow('withdraw', {}, { ...d, prompter: wrapSelect(p) });
    expect(p.done).toBe(true);
    expect(p.asked.filter((q) => q.startsWith('One-time code'))).toHaveLength(2);
    // paid out to the customer's phone, given once: not asked a second time
    expect(p.asked).not.toContain('Phone number for the payment');
    expect(r.status).toBe('pending');
    expect(sb.state.balance('GHS')).toBe(before - 30);
    const steps = d.journal.find('script-wd-1')!.steps.map((s) => `${s.step}:${s.outcome}`);
    expect(steps).toEqual([
      'initiate:ok',
      'gateway:ok',
      'status:ok',
      'otp:ok',
      'processed:failed',
      'processed:ok',
    ]);
  });

  it('three wrong codes end in a validation error, and the transaction stays resumable', async () => {
    const p = new ScriptedPrompter(['111111', '222222', '333333']);
    const d = deps(sb, p);
    const inputs = parseInputs({
      currency: 'GHS',
      country: 'GH',
      amount: '20',
      firstName: 'Kofi',
      phone: '+233201234567',
      email: 'kofi@example.com',
      gateway: '1',
      lastName: 'B',
      reference: 'script-wd-3',
      phoneNumber: '+233201234567',
      receiverEmail: 'r@example.com',
    });
    await expect(runPaymentFlow('withdraw', inputs, d)).rejects.toMatchObject({
      kind: 'validation',
      fields: { otp: expect.any(Array) },
      // After the last try: where it stands, and the command that continues it.
      hint: expect.stringMatching(
        /^The withdrawal script-wd-3 \(hash token [0-9a-f]{64}\) is initiated: continue with `mpay withdraw --resume script-wd-3 --otp <CODE>`$/,
      ),
    });
    expect(p.done).toBe(true);
    const again = await runPaymentFlow(
      'withdraw',
      { ...inputs, reference: 'script-wd-3b', otp: otpOf(demoMerchant.otp) },
      { ...d, prompter: undefined },
    );
    expect(again.status).toBe('pending');
  });

  it('the live environment asks for confirmation; no sends nothing', async () => {
    const p = new ScriptedPrompter([false]);
    const d = deps(sb, p, { env: 'live' });
    const inputs = parseInputs({
      currency: 'GHS',
      country: 'GH',
      amount: '20',
      firstName: 'Kofi',
      lastName: 'B',
      phone: '+233201234567',
      email: 'kofi@example.com',
      gateway: '1',
      reference: 'live-no',
    });
    await expect(runPaymentFlow('deposit', inputs, d)).rejects.toMatchObject({
      kind: 'cancelled',
      exitCode: 130,
      message: expect.stringMatching(/Cancelled .*nothing was sent/),
    });
    expect(p.asked).toEqual(['LIVE server this server, real money: this deposit of 20 GHS. Send it?']);
    expect(sb.state.list().some((t) => t.reference === 'live-no')).toBe(false);
  });
});

/** ScriptedPrompter's select matches by value or name; for currency answers, match a code prefix. */
function wrapSelect(p: ScriptedPrompter): ScriptedPrompter {
  const select = p.select.bind(p);
  p.select = async <T>(o: { message: string; choices: Array<{ name: string; value: T }> }) =>
    select({
      ...o,
      choices: o.choices.map((c) => ({ ...c, value: c.value, name: c.name.split(/\s+/)[0]! })),
    });
  return p;
}

describe('flows as commands without a terminal', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('deposit with flags and --json runs every step', async () => {
    const dir = tempDir();
    const r = await run(['deposit', ...customerFlags({ reference: 'cli-dep-1' }), '--json'], {
      env: cliEnv(sb, dir),
    });
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({
      kind: 'deposit',
      reference: 'cli-dep-1',
      status: 'pending',
      gateway: { id: 1, name: 'MTN Mobile Money' },
    });
    expect(out.wallet_address).toBeNull();
    expect(out.data.wallet).toBeUndefined();
    expect(out.transaction_id).toMatch(/^TXN/);
    expect(out.data.processed.transaction_id).toBe(out.transaction_id);
    expect(out.requested).toEqual({ amount: '25', currency: 'GHS' });
    expect(out.settled).toEqual({ amount: 25, currency: 'GHS', fee: 0.5, net: 24.5 });
    const history = await run(['history', '--json'], { env: cliEnv(sb, dir) });
    expect(history.json()).toEqual([
      expect.objectContaining({ reference: 'cli-dep-1', status: 'pending', gateway_id: 1 }),
    ]);
  });

  it('withdraw without a code stops after it is sent, exits 0 with next: otp, and resumes', async () => {
    const dir = tempDir();
    const env = cliEnv(sb, dir);
    const r = await run(['withdraw', ...customerFlags({ reference: 'cli-wd-1', amount: '15' }), '--json'], {
      env,
    });
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({ next: 'otp', status: 'initiated', reference: 'cli-wd-1' });
    expect(out.resume).toBe(
      `mpay withdraw process ${out.hash_token} --otp <CODE> --profile default --env sandbox --base-url ${sb.url}`,
    );
    const wrong = await run(['withdraw', 'process', out.hash_token, '--otp', '999999', '--json'], { env });
    expect(wrong.code).toBe(4);
    expect(wrong.json().error.fields.otp).toBeDefined();
    const done = await run(['withdraw', '--resume', 'cli-wd-1', '--otp-stdin', '--json'], {
      env,
      input: `${demoMerchant.otp}\n`,
    });
    expect(done.code).toBe(0);
    expect(done.json()).toMatchObject({ status: 'pending', reference: 'cli-wd-1' });
    const paidTwice = await run(
      ['withdraw', 'process', out.hash_token, '--otp', demoMerchant.otp, '--json'],
      { env },
    );
    expect(paidTwice.code).toBe(4);
    expect(paidTwice.json().error.fields.hash_token[0]).toMatch(/already been done/);
    const show = await run(['history', 'show', 'cli-wd-1', '--json'], { env });
    expect(show.json().steps.map((s: { step: string; outcome: string }) => `${s.step}:${s.outcome}`)).toEqual(
      [
        'initiate:ok',
        'gateway:ok',
        'status:ok',
        'otp:ok',
        'processed:failed',
        'processed:ok',
        'processed:failed',
      ],
    );
  });

  it('every single step: initiate, status, wallet, process for both kinds', async () => {
    const dir = tempDir();
    const env = cliEnv(sb, dir);
    const init = await run(
      [
        'deposit',
        'initiate',
        ...customerFlags({
          currency: 'CAD',
          country: 'CA',
          amount: '50',
          reference: 'step-dep',
          gateway: '',
        }),
        '--json',
      ],
      { env },
    );
    expect(init.code).toBe(0);
    // Every step prints the same envelope: hash_token at the top, the API's answer whole under data.
    const hash = init.json().hash_token;
    expect(init.json()).toMatchObject({ kind: 'deposit', reference: 'step-dep', status: 'initiated' });
    expect(init.json().resume).toBe(
      `mpay deposit --resume step-dep --profile default --env sandbox --base-url ${sb.url}`,
    );
    expect(init.json().data.initiate.has_token).toBe(hash);
    expect(init.json().data.initiate.gateway_configuration[0].gateway.name).toBe('Interac e-Transfer');
    const wallet = await run(['wallet', hash, '--gateway', '12', '--json'], { env });
    expect(wallet.json()).toMatchObject({ hash_token: hash, reference: 'step-dep', gateway: { id: 12 } });
    expect(wallet.json().data.wallet).toMatchObject({ gateway_id: 12, network: 'INTERAC' });
    expect(wallet.json().wallet_address).toBe(wallet.json().data.wallet.wallet_address);
    const status = await run(['status', 'step-dep', '--status', 'initiated', '--json'], { env });
    expect(status.json()).toMatchObject({ status: 'initiated', hash_token: hash, reference: 'step-dep' });
    expect(status.json().data.status_update).toMatchObject({
      customer_transaction_id: 'step-dep',
      type: 'collection',
    });
    const processed = await run(['deposit', 'process', hash, '--json'], { env });
    expect(processed.json()).toMatchObject({
      status: 'pending',
      hash_token: hash,
      data: { processed: { payment_method: 'interbank_etransfer' } },
    });

    const wInit = await run(
      [
        'withdraw',
        'initiate',
        ...customerFlags({ amount: '12', reference: 'step-wd', gateway: '' }),
        '--json',
      ],
      { env },
    );
    const wHash = wInit.json().hash_token;
    expect(
      (await run(['status', wHash, '--status', 'initiated', '--gateway', '3', '--json'], { env })).code,
    ).toBe(0);
    const sent = await run(['withdraw', 'process', wHash, '--json'], { env });
    expect(sent.json()).toMatchObject({ next: 'otp' });
    const confirmed = await run(['withdraw', 'process', wHash, '--otp', demoMerchant.otp, '--json'], { env });
    expect(confirmed.json()).toMatchObject({ status: 'pending' });
  });

  it('a step on a reference this journal does not hold: said so, with where references are listed; nothing sent', async () => {
    const env = cliEnv(sb, tempDir());
    const before = await requestCounts(sb);
    for (const args of [
      ['status', 'mpay-d-nothere-000', '--status', 'pending', '--gateway', '1'],
      ['wallet', 'mpay-d-nothere-000', '--gateway', '5'],
      ['deposit', 'process', 'mpay-d-nothere-000'],
    ]) {
      const r = await run([...args, '--json'], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.json().error).toMatchObject({
        kind: 'usage',
        message:
          'No transaction "mpay-d-nothere-000" in this journal, and it is no hash token (letters and digits only, 8 to 128)',
        hint: '`mpay history` lists the references mpay started here (another profile keeps its own); a transaction started elsewhere is named by its hash token',
      });
    }
    expect(await requestCounts(sb)).toEqual(before);
  });

  it('a status update to a final status, then the steps answer "not initiated" (exit 5)', async () => {
    const env = cliEnv(sb, tempDir());
    const init = await run(
      ['deposit', 'initiate', ...customerFlags({ reference: 'state-1', gateway: '' }), '--json'],
      { env },
    );
    const hash = init.json().hash_token;
    expect(
      (await run(['status', hash, '--status', 'cancelled', '--gateway', '1', '--json'], { env })).json()
        .status,
    ).toBe('cancelled');
    const again = await run(['status', hash, '--status', 'initiated', '--gateway', '1', '--json'], { env });
    expect(again.code).toBe(5);
    expect(again.json().error).toMatchObject({
      kind: 'state',
      status: 404,
      message: 'Transaction status is not initiated.',
    });
    const processed = await run(['deposit', 'process', hash, '--json'], { env });
    expect(processed.code).toBe(5);
    expect(noStack(processed.stderr)).toBe(true);
  });

  it('error rows from the flows: duplicate reference (4), wrong gateway (2 and 4), precondition (6), missing values (2)', async () => {
    const env = cliEnv(sb, tempDir());
    expect((await run(['deposit', ...customerFlags({ reference: 'dup-1' }), '--json'], { env })).code).toBe(
      0,
    );
    // From another config folder (its journal does not know dup-1, so mpay sends it): the API refuses.
    const dup = await run(['deposit', ...customerFlags({ reference: 'dup-1' }), '--json'], {
      env: cliEnv(sb, tempDir()),
    });
    expect(dup.code).toBe(4);
    expect(dup.json().error.fields.customer_transaction_id).toBeDefined();
    const gw = await run(['deposit', ...customerFlags({ gateway: '5' }), '--json'], { env });
    expect(gw.code).toBe(2);
    expect(gw.json().error.message).toMatch(/Gateway 5 is not open to deposits in GHS/);
    const init = await run(
      ['deposit', 'initiate', ...customerFlags({ reference: 'gw-1', gateway: '' }), '--json'],
      { env },
    );
    const wrongGw = await run(
      ['status', init.json().hash_token, '--status', 'initiated', '--gateway', '5', '--json'],
      { env },
    );
    expect(wrongGw.code).toBe(4);
    expect(wrongGw.json().error.fields.gateway_id).toBeDefined();
    const pre = await run(
      ['withdraw', ...customerFlags({ currency: 'ZZZ', country: 'GH' }), '--force', '--json'],
      { env },
    );
    expect(pre.code).toBe(6);
    expect(pre.json().error).toMatchObject({
      kind: 'precondition',
      status: 412,
      message: 'This currency is not exits',
    });
    const missing = await run(['deposit', '--currency', 'GHS', '--json'], { env });
    expect(missing.code).toBe(2);
    expect(missing.json().error.message).toBe('Missing --amount, --first-name, --phone, --email, --gateway');
    const bounds = await run(['withdraw', ...customerFlags({ amount: '999999' }), '--json'], { env });
    expect(bounds.code).toBe(2);
    expect(bounds.json().error.message).toMatch(/above the withdrawal maximum of 20000 GHS/);
    const forced = await run(['withdraw', ...customerFlags({ amount: '20001' }), '--force', '--json'], {
      env,
    });
    expect(forced.code).toBe(4);
    expect(forced.json().error.fields.amount).toBeDefined();
  });

  it('the live environment needs --yes without a terminal', async () => {
    const env = cliEnv(sb, tempDir(), { MPAY_ENV: 'live' });
    const refused = await run(['deposit', ...customerFlags({ reference: 'live-1' }), '--json'], { env });
    expect(refused.code).toBe(16);
    expect(refused.json().error.kind).toBe('confirmation_required');
    expect(refused.json().error.message).toMatch(/pass --yes/);
    expect(sb.state.list().some((t) => t.reference === 'live-1')).toBe(false);
    const ok = await run(['deposit', ...customerFlags({ reference: 'live-1' }), '--yes', '--json'], { env });
    expect(ok.code).toBe(0);
  });

  it('--dry-run shows the initiate request and creates nothing', async () => {
    const env = cliEnv(sb, tempDir());
    const r = await run(['deposit', ...customerFlags({ reference: 'dry-1' }), '--dry-run', '--json'], {
      env,
    });
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out.request).toMatchObject({
      method: 'POST',
      encoding: 'json',
      body: { merchant_key: '***', api_key: '***', customer_transaction_id: 'dry-1' },
    });
    expect(out.curl).toMatch(/--data-raw '.*"customer_transaction_id":"dry-1"/);
    expect(out.curl).toContain(`"api_key":"'"$MPAY_API_KEY"'"`);
    expect(out.curl).not.toContain(demoMerchant.apiKey);
    expect(sb.state.list().some((t) => t.reference === 'dry-1')).toBe(false);
  });
});

/** The server recovers: its start-up faults stop; its transactions stay. */
const healFaults = (sb: { url: string }) => setFaults(sb, { rate: 0 });

describe('resume after a stop at each step', () => {
  // A sandbox fails one path with a 500 (the server did not act); then its faults are switched off.
  for (const [step, path, gateway, currency] of [
    ['wallet', '/crypto/wallet/address/update', '5', 'USD'],
    ['status', '/payments/status/update', '1', 'GHS'],
    ['processed', '/payments/processed', '1', 'GHS'],
  ] as const) {
    it(`deposit stopped at ${step} resumes and finishes with one transaction`, async () => {
      const sb = await sandbox({ faults: ['500'], rate: 1, faultPaths: [path] });
      try {
        const env = cliEnv(sb, tempDir());
        const ref = `resume-${step}`;
        const stopped = await run(
          [
            'deposit',
            ...customerFlags({
              reference: ref,
              gateway,
              currency,
              country: currency === 'USD' ? 'US' : 'GH',
            }),
            '--json',
          ],
          { env },
        );
        expect(stopped.code).toBe(7);
        await healFaults(sb);
        const resumed = await run(['deposit', '--resume', ref, '--json'], { env });
        expect(resumed.code).toBe(0);
        expect(resumed.json()).toMatchObject({ status: 'pending', reference: ref });
        expect(sb.state.list().filter((t) => t.reference === ref)).toHaveLength(1);
      } finally {
        await sb.close();
      }
    });
  }

  it('initiate dropped before the server acted: --resume sends it again with the same reference', async () => {
    const sb = await sandbox({ faults: ['drop'], rate: 1, faultPaths: ['/payments/initiate'] });
    try {
      const env = cliEnv(sb, tempDir());
      const stopped = await run(['deposit', ...customerFlags({ reference: 'resume-init' }), '--json'], {
        env,
      });
      expect(stopped.code).toBe(8);
      expect(stopped.json().error.hint).toMatch(/reference resume-init/);
      await healFaults(sb);
      const resumed = await run(['deposit', '--resume', 'resume-init', '--json'], { env });
      expect(resumed.code).toBe(0);
      expect(sb.state.list().filter((t) => t.reference === 'resume-init')).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });

  it('initiate dropped after the server acted: --resume is refused as a duplicate, never a second transaction', async () => {
    const sb = await sandbox({ faults: ['drop-after'], rate: 1, faultPaths: ['/payments/initiate'] });
    try {
      const env = cliEnv(sb, tempDir());
      const stopped = await run(['deposit', ...customerFlags({ reference: 'resume-amb' }), '--json'], {
        env,
      });
      expect(stopped.code).toBe(8);
      const hist = await run(['history', 'show', 'resume-amb', '--json'], { env });
      expect(hist.json().steps).toEqual([
        expect.objectContaining({ step: 'initiate', outcome: 'ambiguous' }),
      ]);
      await healFaults(sb);
      const resumed = await run(['deposit', '--resume', 'resume-amb', '--json'], { env });
      expect(resumed.code).toBe(4);
      expect(resumed.json().error.fields.customer_transaction_id).toBeDefined();
      expect(resumed.json().error.hint).toMatch(
        /earlier initiate request for resume-amb was sent and its answer lost.*most likely applied.*ask the provider/,
      );
      expect(sb.state.list().filter((t) => t.reference === 'resume-amb')).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });
});

describe('the wallet rule', () => {
  it('names the gateways of the spec and no others', () => {
    const reasons = Object.fromEntries(
      gateways.map((g) => [g.record.name, walletReason(Gateway.parse(g.record)) ?? null]),
    );
    expect(reasons).toEqual({
      'MTN Mobile Money': null,
      'MPay Wallet': 'service',
      'Vodafone Cash': null,
      Ethereum: null,
      'USDT (TRC20)': 'usdt-trc20',
      'MoonPay Card On-Ramp': 'card-onramp',
      'Transak Card On-Ramp': 'card-onramp',
      'Banxa Card On-Ramp': 'card-onramp',
      'M-Pesa': null,
      'Orange Money': null,
      'USDC (ERC20)': 'usdc-erc20',
      'Interac e-Transfer': 'interbank-etransfer',
    });
  });

  it('the flow runs the wallet update exactly for those, and --wallet / --no-wallet override it', async () => {
    const sb = await sandbox();
    try {
      const env = cliEnv(sb, tempDir());
      const cases: Array<[string, string, string, string[], boolean]> = [
        ['USD', 'US', '5', [], true],
        ['USD', 'US', '11', [], true],
        ['USD', 'US', '4', [], false],
        ['USD', 'US', '6', [], true],
        ['GHS', 'GH', '2', [], true],
        ['GHS', 'GH', '1', [], false],
        ['CAD', 'CA', '12', [], true],
        ['GHS', 'GH', '1', ['--wallet'], true],
      ];
      for (const [currency, country, gateway, extra, wallet] of cases) {
        const r = await run(
          ['deposit', ...customerFlags({ currency, country, gateway, amount: '50' }), ...extra, '--json'],
          { env },
        );
        expect(r.code, `${gateway} ${extra.join(' ')}: ${r.stderr}`).toBe(0);
        expect(Boolean(r.json().data.wallet), `gateway ${gateway} ${extra.join(' ')}`).toBe(wallet);
      }
      // --no-wallet skips the update even where the spec requires it: the sandbox then refuses the
      // status update, as the spec's "must be called before" reads; a support engineer sees that answer.
      const skipped = await run(
        [
          'deposit',
          ...customerFlags({
            currency: 'USD',
            country: 'US',
            gateway: '5',
            amount: '50',
            reference: 'no-wallet-5',
          }),
          '--no-wallet',
          '--json',
        ],
        { env },
      );
      expect(skipped.code).toBe(4);
      expect(skipped.json().error.fields.wallet_address).toEqual([
        'The wallet address must be updated before the status for this gateway.',
      ]);
      const tx = sb.state.list().find((t) => t.reference === 'no-wallet-5');
      expect(tx?.wallet_address).toBeUndefined();
      expect(tx?.status).toBe('initiated');
    } finally {
      await sb.close();
    }
  });
});
