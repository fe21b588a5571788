// The interactive flows as a person meets them: bin/run.js in a real pseudo-terminal (tmux), keys sent
// one answer at a time, the screen read back. The tests run concurrently, each on a terminal (a tmux
// server) and in a config folder of its own, against one sandbox; what a test checks after its terminal
// closed (the journal, a resume, the config) runs the commands in this process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiInitiate, apiToken, cliEnv, file, sandbox, tempDir, requestCount } from './helpers.js';
import { mpay } from './in-process.js';
import { strictSandbox } from './strict.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';
import { demoMerchant } from '../src/sandbox/seed.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
/** The tests at once; a minute for a process to start on a loaded machine, the test's deadline above its waits'. */
const together = { concurrent: true, timeout: 120_000 };
describe.skipIf(without('tmux'))('interactive flows in a pseudo-terminal', together, () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('a USDT deposit: prompts, a gateway picked from a list, the wallet address with its QR code', async () => {
    const t = new Tmux('deposit');
    try {
      t.start(['deposit'], cliEnv(sb, tempDir()));
      await t.waitFor(/Currency/, 60_000);
      // Deposit currencies in seed order: GHS, NGN, KES, XAF, USD, CAD.
      t.keys('Down', 'Down', 'Down', 'Down');
      await t.waitFor(/❯ USD/);
      t.keys('Enter');
      await t.waitFor(/Amount in USD \(1–10000\)/);
      t.answer('abc');
      await t.waitFor(/positive decimal/);
      t.keys('C-u');
      t.answer('100');
      await t.waitFor(/Customer first name/);
      t.answer('Ama');
      await t.waitFor(/Customer last name/);
      t.answer('Mensah');
      await t.waitFor(/Customer phone \(\+1…, or national: \(201\) 555-0123\)/);
      t.answer('+15551234567');
      await t.waitFor(/Customer e-mail/);
      t.answer('ama@example.com');
      await t.waitFor(/Reference \(customer_transaction_id\)/);
      t.answer('pty-dep-1');
      await t.waitFor(/Gateway/);
      await t.waitFor(/❯ 5\s+USDT \(TRC20\)/);
      t.keys('Enter');
      await t.waitFor(/Phone number for the payment/);
      t.answer('');
      await t.waitFor(/Also send the confirmation/);
      t.answer('');
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).toMatch(/Wallet address update \(usdt-trc20\)/);
      expect(screen).toMatch(/send to T[1-9A-HJ-NP-Za-km-z]{33} \(USDT on TRC20\)/);
      expect(screen).toMatch(/[▄▀█]{10,}/); // the QR code
      expect(screen).toMatch(/Done: deposit TXN\w+ is pending/);
      expect(sb.state.list().find((x) => x.reference === 'pty-dep-1')?.status).toBe('pending');
    } finally {
      t.kill();
    }
  });

  it('a withdrawal: the one-time code asked masked, a wrong code first, then the right one', async () => {
    const t = new Tmux('withdraw');
    try {
      t.start(['withdraw', '--currency', 'GHS', '--country', 'GH'], cliEnv(sb, tempDir()));
      await t.waitFor(/Amount in GHS/, 60_000);
      await t.dialogue([
        [/Amount in GHS/, '30'],
        [/Customer first name/, 'Kofi'],
        [/Customer last name/, ''],
        [/Customer phone/, '+233201234567'],
        [/Customer e-mail/, 'kofi@example.com'],
        [/Reference/, 'pty-wd-1'],
        [/❯ 1\s+MTN Mobile Money/, ['Enter']],
      ]);
      // the payout goes to the customer's phone, given above: not asked twice
      await t.waitFor(/Also send the confirmation/);
      expect(t.screen()).not.toMatch(/Phone number for the payment/);
      t.answer('');
      await t.waitFor(/One-time code sent to kofi@example.com/);
      t.answer('000000');
      await t.waitFor(/wrong code .* 2 tries left/);
      t.answer('123456');
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).toMatch(/\*{6}/);
      expect(screen).not.toMatch(/(?<!\d)123456(?!\d)/);
      expect(screen).toMatch(/Done: withdraw TXN\w+ is pending/);
    } finally {
      t.kill();
    }
  });

  it('Ctrl-C at the gateway prompt loses nothing: the journal has the initiate, and --resume finishes', async () => {
    const t = new Tmux('cancel');
    const dir = tempDir();
    try {
      t.start(
        [
          'deposit',
          '--currency',
          'GHS',
          '--country',
          'GH',
          '--amount',
          '12',
          '--first-name',
          'Ama',
          '--last-name',
          'M',
          '--phone',
          '+233201234567',
          '--email',
          'ama@example.com',
          '--reference',
          'pty-cancel',
        ],
        cliEnv(sb, dir),
      );
      await t.waitFor(/Gateway/, 60_000);
      await t.waitFor(/❯ 1\s+MTN Mobile Money/);
      t.keys('C-c');
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      // Where it stands, and the exact command that continues it.
      expect(screen).toMatch(
        /mpay: cancelled\. The deposit pty-cancel \(hash token [0-9a-f]{64}\) is initiated; nothing more was sent/,
      );
      expect(screen).toMatch(
        /hint: Continue it with mpay deposit --resume pty-cancel --profile default --env sandbox --base-url http:\/\/127\.0\.0\.1:\d+$/m,
      );
      expect(screen).toMatch(/EXIT=130/);
    } finally {
      t.kill();
    }
    const show = await mpay(['history', 'show', 'pty-cancel', '--json'], { env: cliEnv(sb, dir) });
    expect(show.json()).toMatchObject({
      reference: 'pty-cancel',
      status: 'initiated',
      resume: `mpay deposit --resume pty-cancel --profile default --env sandbox --base-url ${sb.url}`,
    });
    const resumed = await mpay(['deposit', '--resume', 'pty-cancel', '--gateway', '3', '--json'], {
      env: cliEnv(sb, dir),
    });
    expect(resumed.code).toBe(0);
    expect(resumed.json()).toMatchObject({ status: 'pending', gateway: { id: 3 } });
    expect(sb.state.list().filter((x) => x.reference === 'pty-cancel')).toHaveLength(1);
  });

  it('login asks for environment, base URL, merchant key (masked), site id and API key, then checks them', async () => {
    const t = new Tmux('login');
    const dir = tempDir();
    try {
      t.start(['login'], { MPAY_CONFIG_DIR: dir });
      await t.waitFor(/Environment/, 60_000);
      t.keys('Enter'); // sandbox, the first choice
      await t.waitFor(/Base URL of the sandbox API/);
      t.keys('C-u');
      t.answer(sb.url);
      await t.waitFor(/Merchant key/);
      t.answer(demoMerchant.merchantKey);
      await t.waitFor(/Site ID/);
      t.answer('1');
      await t.waitFor(/API key/);
      t.answer(demoMerchant.apiKey);
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).toMatch(
        /Logged in: profile default, sandbox at http:\/\/127\.0\.0\.1:\d+, merchant key mk_…emo \(accepted by the API\)/,
      );
      expect(screen).not.toContain(demoMerchant.merchantKey);
      expect(screen).not.toContain(demoMerchant.apiKey);
    } finally {
      t.kill();
    }
    const who = await mpay(['whoami', '--json'], { env: { MPAY_CONFIG_DIR: dir } });
    expect(who.json()).toMatchObject({
      profile: 'default',
      env: 'sandbox',
      base_url: sb.url,
      cached_token: true,
    });
  });
  it('a live status update answered "n" at the confirmation: cancelled, exit 130, nothing sent', async () => {
    // a sandbox of its own: the other tests, at once, send status updates to the shared one
    const sb = await sandbox();
    const token = await apiToken(sb.url);
    const hash = (await (await apiInitiate(sb.url, token, 'pty-live-no')).json()).data.has_token as string;
    const counts = () => requestCount(sb, 'POST /payments/status/update');
    const before = await counts();
    const t = new Tmux('live-no');
    try {
      t.start(
        ['status', hash, '--status', 'failed', '--gateway', '1'],
        cliEnv(sb, tempDir(), { MPAY_ENV: 'live' }),
      );
      await t.waitFor(
        /LIVE server http:\/\/127\.0\.0\.1:\d+, real money: Updating the status to failed/,
        60_000,
      );
      t.answer('n');
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=130/);
      expect(screen).toMatch(/mpay: Cancelled at the live confirmation; nothing was sent/);
      expect(await counts()).toBe(before);
      expect(sb.state.list().find((x) => x.reference === 'pty-live-no')?.status).toBe('initiated');
    } finally {
      t.kill();
      await sb.close();
    }
  });
  it('CI=true on a real terminal: nothing is asked, and the missing values are a usage error', async () => {
    const t = new Tmux('ci-true');
    try {
      t.start(['deposit', '--currency', 'GHS'], cliEnv(sb, tempDir(), { CI: 'true' }));
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=2/);
      expect(screen).toMatch(/mpay: Missing --amount, --first-name, --phone, --email, --gateway/);
      expect(screen).not.toMatch(/Amount in|Customer first name|❯/);
    } finally {
      t.kill();
    }
  });
  it('a batch on a terminal: one confirmation, then a progress bar, with the failed row printed above it', async () => {
    const dir = tempDir();
    const path = join(dir, 'pty-batch.csv');
    writeFileSync(
      path,
      [
        'currency,country,amount,first_name,phone,email,gateway',
        'GHS,GH,10,Efua,+233201239001,efua@example.net,1',
        'GHS,GH,60000,Kwame,+233201239002,kwame@example.net,1',
        'GHS,GH,12,Nana,+233201239003,nana@example.net,1',
      ].join('\n'),
    );
    const t = new Tmux('batch');
    try {
      t.start(['deposit', 'batch', path, '--force'], cliEnv(sb, tempDir()));
      await t.waitFor(/Send these 3 deposits\?/, 60_000);
      t.answer('y');
      const screen = await t.waitFor(/EXIT=\d+/, 60_000);
      expect(screen).toMatch(/EXIT=10/);
      expect(screen).toMatch(/3\/3 rows \| 1 failed \| [\d.]+ rows\/s \| \S+ left/);
      // whole, however long: the API's reason included
      expect(screen).toMatch(/row 2 mpay-db-\S+: failed: .*amount.*50000/);
      // On a terminal the rows that went well are counted by the bar, not listed.
      expect(screen).not.toMatch(/row 1 mpay-db-\S+: done/);
      expect(screen).toMatch(/2 done, 0 already done, 1 failed, 0 unknown/);
    } finally {
      t.kill();
    }
  });

  it('withdraw batch confirm on a terminal asks its one question first; answered no, no code is sent', async () => {
    // strict: after the scene, any request that moves money fails the test
    const strict = await strictSandbox();
    strict.allowReads();
    try {
      const env = cliEnv(strict, tempDir());
      const rows = [
        'currency,country,amount,first_name,phone,email,gateway',
        'GHS,GH,21,Ato,+233201239011,ato@example.net,1',
        'GHS,GH,22,Aba,+233201239012,aba@example.net,1',
      ].join('\n');
      for (const route of ['withdraw/initiate', 'status/update', 'withdraw/processed'])
        strict.expect(`POST /payments/${route}`, 2);
      const started = await mpay(['withdraw', 'batch', file('pty-w.csv', rows), '--json'], { env });
      expect(started.code, started.stderr).toBe(0);
      strict.verify();
      const codes = started.stdout
        .trim()
        .split('\n')
        .map((l) => `${JSON.parse(l).reference as string},${demoMerchant.otp}`);
      const path = file('pty-codes.csv', ['reference,otp', ...codes].join('\n'));
      const t = new Tmux('confirm');
      try {
        t.start(['withdraw', 'batch', 'confirm', path], env);
        await t.waitFor(/Confirm these 2 withdrawals\?/, 60_000);
        t.answer('n');
        const screen = await t.waitFor(/EXIT=\d+/, 60_000);
        expect(screen).toMatch(/EXIT=130/);
        expect(screen).toMatch(/nothing was sent/);
      } finally {
        t.kill();
      }
      strict.verify();
    } finally {
      await strict.close();
    }
  });
});
