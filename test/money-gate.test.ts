import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/api/client.js';
import { memoryTokens } from '../src/api/credentials.js';
import {
  BusyError,
  CancelledError,
  ConfirmationRequiredError,
  exitCodes,
  LocalFileError,
  UnexpectedError,
  UsageError,
} from '../src/common/errors.js';
import { moneyEndpointOf } from '../src/api/money.js';
import { Pacer } from '../src/api/rate-limit.js';
import { runTickets } from '../src/api/ticket.js';
import { judgeServer, type ServerVerdict } from '../src/config/live.js';
import { compareDecimals, decimalKey, sumDecimals } from '../src/common/decimal.js';
import { runRow } from '../src/flows/batch/batch-row.js';
import { MoneyGate, nothingSent } from '../src/flows/gate/money-gate.js';
import type { Prompter } from '../src/flows/prompter.js';
import { Journal } from '../src/journal/journal.js';
import { holdLock, lockName, LockLostError } from '../src/journal/locks.js';
import type { Place } from '../src/journal/records.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  cliEnv,
  customerArgs,
  demoClient,
  file,
  loopbackServer,
  ndjson,
  tempDir,
  testGate,
  allJournalEvents,
  mergedHar,
} from './helpers.js';
import { mpay as run } from './in-process.js';
import { strictSandbox, type StrictSandbox } from './strict.js';

const credentials = {
  merchantKey: demoMerchant.merchantKey,
  siteId: demoMerchant.siteId,
  apiKey: demoMerchant.apiKey,
};

/** The journal's events of a config folder, every file: what "nothing journaled" is checked against. */
function journalLines(cfg: string): string[] {
  return allJournalEvents(cfg).map((e) => JSON.stringify(e));
}

/** A client of its own whose money requests go out only with a ticket of `tickets`. */
const ticketedClient = (baseUrl: string, tickets: ReturnType<typeof runTickets>) =>
  new Client({ baseUrl, credentials, tokens: memoryTokens(), verifyTicket: tickets.verify });

describe('the sender refuses a money request without a ticket, however it is spelled', () => {
  let sb: StrictSandbox;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  const spellings = [
    'payments/initiate',
    '/payments/initiate',
    'payments//initiate',
    'payments/../payments/initiate',
    'payments/./initiate',
    'payments/initiate?x=1',
    'payments/initiate/',
    'PAYMENTS/Initiate',
    'payments/%69nitiate',
    'payments%2finitiate',
    'payments/withdraw/initiate',
    'payments/status/update',
    'payments/crypto/wallet/address/update',
    'payments/processed',
    'payments/withdraw/processed',
  ];

  it('classifies every spelling of the six endpoints as money, and nothing else', () => {
    const base = 'http://127.0.0.1:1/restapi/v1/';
    for (const s of spellings) expect(moneyEndpointOf(base + s), s).toBeDefined();
    for (const s of ['public/currencies', 'merchant/currencies', 'auth/merchant/token/generate', 'payments'])
      expect(moneyEndpointOf(base + s), s).toBeUndefined();
    expect(moneyEndpointOf(`${base}payments/withdraw/initiate`)?.kind).toBe('withdraw');
    expect(moneyEndpointOf(`${base}payments/initiate`)?.kind).toBe('deposit');
  });

  it('a client with no ticket verification, or with a ticket of another step or reference, sends none of them', async () => {
    const bare = new Client({ baseUrl: sb.url, credentials, tokens: memoryTokens() });
    for (const path of spellings) {
      await expect(
        bare.raw({
          method: 'POST',
          path,
          encoding: 'json',
          body: { customer_transaction_id: 'r1', hash_token: 'h' },
          bearer: true,
        }),
        path,
      ).rejects.toBeInstanceOf(UnexpectedError);
    }
    await expect(bare.statusUpdate({ hash_token: 'h', status: 'failed', gateway_id: 1 })).rejects.toThrow(
      /without the money gate’s ticket/,
    );
    // A ticket lets through only the step and the transaction it was made for.
    const tickets = runTickets();
    const client = ticketedClient(sb.url, tickets);
    const { ticket, revoke } = tickets.issue({
      step: 'status',
      carries: { field: 'hash_token', value: 'h-one' },
      live: false,
      check: () => {},
    });
    await expect(client.walletUpdate({ hash_token: 'h-one', gateway_id: 1 }, { ticket })).rejects.toThrow(
      /ticket for another step/,
    );
    await expect(
      client.statusUpdate({ hash_token: 'h-two', status: 'failed', gateway_id: 1 }, { ticket }),
    ).rejects.toThrow(/another hash_token/);
    revoke();
    await expect(
      client.statusUpdate({ hash_token: 'h-one', status: 'failed', gateway_id: 1 }, { ticket }),
    ).rejects.toThrow(/already used/);
    // A ticket of another run's tickets (another run's gate) is no ticket here.
    const foreign = runTickets().issue({
      step: 'status',
      carries: { field: 'hash_token', value: 'h-one' },
      live: false,
      check: () => {},
    });
    await expect(
      client.statusUpdate(
        { hash_token: 'h-one', status: 'failed', gateway_id: 1 },
        { ticket: foreign.ticket },
      ),
    ).rejects.toThrow(/without the money gate’s ticket/);
    sb.verify();
  });
});

describe('mpay api, doctor and a profile known as live pass the gate', () => {
  let sb: StrictSandbox;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  const initiate = ['-f', 'currency_code=GHS', '-f', 'country_code=GH', '-F', 'amount=10'];

  it('mpay api to a money endpoint in live, no terminal, no --yes: refused for every spelling, nothing sent or journaled', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' });
    for (const path of [
      '/payments/initiate',
      '//payments/initiate',
      '/payments/../payments/initiate',
      '/payments/initiate?x=1',
      '/restapi/v1/payments/withdraw/processed',
      '/payments/status/update',
    ]) {
      const r = await run(
        ['api', 'POST', path, '--credentials', ...initiate, '-f', 'hash_token=abc', '--encoding', 'json'],
        {
          env,
        },
      );
      expect(r.code, `${path}: ${r.stdout}${r.stderr}`).toBe(16);
      expect(r.stderr).toMatch(/Nothing was sent: .* live server/);
    }
    expect(journalLines(cfg)).toEqual([]);
    sb.verify();
  });

  it('mpay api to a money endpoint on a test server: journaled as a transaction, which history shows', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url });
    sb.expect('POST /payments/initiate');
    const r = await run(
      [
        'api',
        'POST',
        'payments/initiate',
        '--credentials',
        ...initiate,
        '-f',
        'customer_first_name=Ama',
        '-f',
        'customer_phone=+233201234567',
        '-f',
        'customer_email=ama@example.com',
        '-f',
        'customer_transaction_id=api-ref-1',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    sb.verify();
    const h = await run(['history', 'show', 'api-ref-1', '--json'], { env });
    expect(h.code, h.stderr).toBe(0);
    expect(h.json()).toMatchObject({
      reference: 'api-ref-1',
      kind: 'deposit',
      requested: { amount: '10', currency: 'GHS' },
    });
    expect(h.json().hash_token).toMatch(/^[0-9a-f]{16,}$/);
    // The same reference again, for another amount: refused before anything is sent, its record untouched.
    const again = await run(
      [
        'api',
        'POST',
        'payments/withdraw/initiate',
        '--credentials',
        '-f',
        'currency_code=GHS',
        '-f',
        'country_code=GH',
        '-F',
        'amount=44',
        '-f',
        'customer_transaction_id=api-ref-1',
      ],
      { env },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /customer_transaction_id api-ref-1 is already in the journal: a deposit .*; nothing was sent/,
    );
    sb.verify();
    expect((await run(['history', 'show', 'api-ref-1', '--json'], { env })).json()).toMatchObject({
      kind: 'deposit',
      requested: { amount: '10', currency: 'GHS' },
    });
    // Its secrets are not in the journal.
    expect(journalLines(cfg).join('\n')).not.toContain(demoMerchant.apiKey);
    // A status update to a hash token mpay never saw: a record of its own, whose status is not the one
    // asked for, and which offers no --resume (mpay has no initiate to resume from).
    sb.expect('POST /payments/status/update');
    const stranger = 'abcdef1234567890';
    const upd = await run(
      [
        'api',
        'POST',
        'payments/status/update',
        '-f',
        `hash_token=${stranger}`,
        '-f',
        'status=failed',
        '-f',
        'gateway_id=1',
        '-f',
        'password=Pw_Secret1',
      ],
      { env },
    );
    expect(upd.code).toBe(4);
    // a field the one list of secret names names is not journaled (a new user's trial found it was)
    expect(journalLines(cfg).join('\n')).not.toContain('Pw_Secret1');
    sb.verify();
    const shown = await run(['history', 'show', stranger, '--json'], { env });
    expect(shown.json()).toMatchObject({
      reference: stranger,
      status: null,
      resume: null,
      gateway: { id: 1 },
      steps: [{ step: 'status', outcome: 'failed' }],
    });
    const resumed = await run(['deposit', '--resume', stranger, '--json'], { env });
    expect(resumed.code).toBe(2);
    expect(resumed.json().error.message).toBe(
      `${stranger} cannot be resumed: mpay did not initiate it: its journal holds only the steps sent to hash token ${stranger}`,
    );
    sb.verify();
    // nor does a single step's refusal on such a hash token offer --resume
    sb.expect('POST /payments/withdraw/processed');
    const step = await run(
      [
        'withdraw',
        'process',
        'deadbeef00',
        '--otp',
        '123456',
        '--phone-number',
        '+233201234567',
        '--email',
        'a@example.com',
      ],
      { env },
    );
    expect(step.code).toBe(4);
    expect(step.stderr).not.toMatch(/--resume/);
    sb.verify();
  });

  it('doctor on a live server skips the API-key probe and says how to run it; --check-api-key asks for --yes', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' });
    const r = await run(['doctor', '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const key = r.json().checks.find((c: { name: string }) => c.name === 'API key');
    expect(key.detail).toMatch(
      /skipped: .* live server.*`mpay doctor --check-api-key --profile default --env live --base-url /,
    );
    expect(key.skipped).toBe(true);
    const refused = await run(['doctor', '--check-api-key', '--json'], { env });
    expect(refused.stdout + refused.stderr).toMatch(/pass --yes/);
    // the refusal is the API-key check's failure; the checks after it still run
    const names = refused.json().checks.map((c: { name: string }) => c.name);
    expect(names.indexOf('API key')).toBeGreaterThanOrEqual(0);
    expect(names.length).toBeGreaterThan(names.indexOf('API key') + 1);
    sb.verify();
    // skipped and refused: nothing sent, nothing journaled
    expect(journalLines(cfg)).toEqual([]);
    sb.expect('POST /payments/withdraw/initiate');
    const asked = await run(['doctor', '--check-api-key', '--yes', '--json'], { env });
    expect(asked.code, asked.stdout).toBe(0);
    sb.verify();
    // asked for: journaled as a probe before it left, then its answer
    expect(journalLines(cfg).map((l) => JSON.parse(l) as Record<string, unknown>)).toMatchObject([
      { kind: 'withdraw', step: 'initiate', outcome: 'sent', data: { probe: true } },
      { kind: 'withdraw', step: 'initiate', outcome: 'failed', data: { probe: true } },
    ]);
  });

  it('a server a profile keeps as live is live under --env sandbox too: a withdrawal is refused without --yes', async () => {
    const cfg = tempDir();
    const env = { ...cliEnv(undefined, cfg), MPAY_MERCHANT_KEY: undefined };
    const login = await run(
      [
        'login',
        '--profile',
        'prod',
        '--env',
        'live',
        '--base-url',
        sb.url,
        '--site-id',
        '1',
        '--no-verify',
        '--insecure-storage',
        '--merchant-key',
        demoMerchant.merchantKey,
        '--api-key',
        demoMerchant.apiKey,
      ],
      { env },
    );
    expect(login.code, login.stderr).toBe(0);
    const w = await run(
      [
        'withdraw',
        ...customerArgs({ reference: 'srv-live' }),
        '--env',
        'sandbox',
        '--base-url',
        sb.url,
        '--json',
      ],
      { env: cliEnv(undefined, cfg) },
    );
    expect(w.code, w.stdout).toBe(16);
    expect(w.json().error.message).toMatch(/live server .*profile prod keeps it as its live server/);
    // The same server by another name (a new user's trial sent three deposits this way) is the same server.
    const port = new URL(sb.url).port;
    for (const other of [
      `http://localhost:${port}`,
      `http://127.1:${port}/`,
      `http://0x7f000001:${port}`,
      `${sb.url}/restapi/v1`,
    ]) {
      const again = await run(
        [
          'withdraw',
          ...customerArgs({ reference: 'srv-live-2' }),
          '--env',
          'sandbox',
          '--base-url',
          other,
          '--json',
        ],
        { env: cliEnv(undefined, cfg) },
      );
      expect(again.code, `${other}: ${again.stdout}`).toBe(16);
      expect(again.json().error.message, other).toMatch(/profile prod keeps it as its live server/);
      const proxy = await run(['proxy', '--upstream', other, '--port', '0', '--json'], {
        env: cliEnv(undefined, cfg),
      });
      expect(proxy.code, other).toBe(2);
      expect(proxy.stderr).toMatch(
        /is a live server \(profile prod keeps it as its live server\); nothing was started/,
      );
    }
    sb.verify();
    expect(judgeServer(sb.url, 'sandbox', {}).live).toBe(false);
    expect(judgeServer('https://api.example.com', 'sandbox', {}).live).toBe(true);
    expect(
      judgeServer('https://stage.example.com', 'sandbox', {
        s: { baseUrls: { stage: 'https://stage.example.com/' } },
      }).live,
    ).toBe(false);
  });
});

describe('replay stops at the first failed call before a later money call', () => {
  let sb: StrictSandbox;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  /** A trace of a deposit initiated, a status update refused (gateway 999), then processed. */
  async function trace(ref = 'rp-1'): Promise<string> {
    const cfg = tempDir();
    const env = cliEnv(sb.inner, cfg);
    const parts = ['a', 'b', 'c'].map((n) => join(cfg, `${n}.har`));
    const d = await run(
      [
        'deposit',
        'initiate',
        ...customerArgs({ reference: ref, gateway: '' }),
        '--trace',
        parts[0]!,
        '--json',
      ],
      { env },
    );
    expect(d.code, d.stderr).toBe(0);
    const s = await run(['status', ref, '--status', 'initiated', '--gateway', '999', '--trace', parts[1]!], {
      env,
    });
    expect(s.code).toBe(4);
    const p = await run(['deposit', 'process', ref, '--trace', parts[2]!, '--json'], {
      env,
    });
    expect([0, 5], p.stdout + p.stderr).toContain(p.code);
    return mergedHar('replay-stop.har', parts);
  }

  it('sends nothing after a status update refused here but accepted in the recording; --keep-going sends the processed', async () => {
    // the recording as if its status update had been accepted: here it is refused, answered otherwise
    const recorded = JSON.parse(readFileSync(await trace(), 'utf8'));
    const status = recorded.log.entries.find((e: { request: { url: string } }) =>
      e.request.url.endsWith('/status/update'),
    );
    status.response.status = 200;
    status.response.content.text = JSON.stringify({ success: true, message: 'Status updated', data: {} });
    const har = file('replay-accepted.har', JSON.stringify(recorded));
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url });
    sb.expect('POST /payments/initiate');
    sb.expect('POST /payments/status/update');
    const r = await run(['replay', har, '--json'], { env });
    expect(r.code, r.stderr).toBe(13);
    sb.verify();
    const processed = r.json().find((c: { path: string }) => c.path === '/payments/processed');
    expect(processed.replayed).toBeNull();
    expect(processed.skipped).toMatch(/answered otherwise than recorded: HTTP 422.*--keep-going/);
    // what the recording answered is still shown beside it (a new user saw "not JSON")
    expect(processed.recorded.status).toBe(200);
    expect(processed.recorded.shape).not.toBeNull();
    expect(r.stderr).toMatch(
      /stopped: call \d \(POST \/payments\/status\/update\) answered otherwise than recorded: HTTP 422/,
    );
    sb.expect('POST /payments/initiate');
    sb.expect('POST /payments/status/update');
    sb.expect('POST /payments/processed');
    const going = await run(['replay', har, '--keep-going', '--json'], { env });
    expect(going.code, going.stderr).toBe(13);
    sb.verify();
  });

  it('a refused status update answered as recorded is the trace reproduced: every call sent, exit 0', async () => {
    const har = await trace('rp-2');
    const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: sb.url });
    sb.expect('POST /payments/initiate');
    sb.expect('POST /payments/status/update');
    sb.expect('POST /payments/processed');
    const r = await run(['replay', har, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    sb.verify();
    const calls = r.json() as { path: string; same: boolean; replayed: { status: number } | null }[];
    expect(calls.every((c) => c.same && c.replayed)).toBe(true);
    expect(calls.find((c) => c.path === '/payments/status/update')!.replayed!.status).toBe(422);
  });
});

describe("a batch row's reference names one payment, and a repeat is any one contact", () => {
  let sb: StrictSandbox;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  const header = 'currency,country,amount,first_name,last_name,phone,email,gateway,reference';

  it('a row whose reference the journal holds for another payment is refused, naming both; nothing sent', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url });
    sb.expect('POST /payments/withdraw/initiate');
    const w = await run(
      [
        'withdraw',
        'initiate',
        ...customerArgs({ reference: 'payout-7', amount: '10', gateway: '' }),
        '--json',
      ],
      { env },
    );
    expect(w.code, w.stderr).toBe(0);
    sb.verify();
    const csv = file(
      'other-payment.csv',
      `${header}\nGHS,GH,500,Kofi,Boateng,+233241234567,kofi@example.com,1,payout-7\n`,
    );
    const r = await run(['withdraw', 'batch', csv, '--yes', '--json'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout + r.stderr).toMatch(
      /payout-7 is in the journal for another payment \(amount 10, .*first name Ama/,
    );
    sb.verify();
  });

  it('a row edited in its first name, its e-mail or its phone only, or written 25.00 for 25, is a repeat', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url });
    const row = (first: string, email: string, amount = '25', phone = '+233201234567') =>
      `${header}\nGHS,GH,${amount},${first},Mensah,${phone},${email},1,\n`;
    sb.expect('POST /payments/initiate');
    sb.expect('POST /payments/status/update');
    sb.expect('POST /payments/processed');
    const first = await run(
      ['deposit', 'batch', file('rep.csv', row('Ama', 'ama@example.com')), '--yes', '--json'],
      {
        env,
      },
    );
    expect(first.code, first.stderr).toBe(0);
    sb.verify();
    for (const [name, text] of [
      ['first name', row('Abena', 'ama@example.com')],
      ['e-mail', row('Ama', 'ama.m@example.com')],
      ['phone', row('Ama', 'ama@example.com', '25', '+233241234567')],
      ['decimal', row('Ama', 'ama@example.com', '25.00')],
    ] as const) {
      const r = await run(['deposit', 'batch', file(`rep-${name}.csv`, text), '--yes', '--json'], { env });
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stdout + r.stderr, name).toMatch(/--allow-repeats/);
    }
    sb.verify();
  });

  it('decimals: 10 is 10.00, a week of 0.1s adds to 0.3, and comparisons are exact', () => {
    expect(decimalKey('10')).toBe(decimalKey('10.00'));
    expect(decimalKey('010.50')).toBe('10.5');
    expect(sumDecimals(['0.1', '0.1', '0.1'])).toBe('0.3');
    expect(0.1 + 0.1 + 0.1).not.toBe(0.3);
    expect(compareDecimals(sumDecimals(['0.1', '0.2']), '0.3')).toBe(0);
    expect(compareDecimals('1000.01', '1000')).toBe(1);
  });
});

describe('locks know their holder', () => {
  it('a lock taken over by another process fails its holder’s next check, and the gate journals nothing', async () => {
    const dir = tempDir();
    const journal = new Journal(dir, 'default', 'sandbox');
    const gate = testGate('sandbox');
    const held = await holdLock(
      join(dir, 'journal'),
      lockName('transaction', '', '', 'lost-1'),
      'the deposit lost-1',
    );
    // Another mpay took it over (it was stale): its owner file now names another holder.
    const ownerFile = readdirSync(join(dir, 'journal', 'locks')).find((n) => n.endsWith('.owner'))!;
    const path = join(dir, 'journal', 'locks', ownerFile);
    writeFileSync(
      path,
      JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), pid: 1, token: 'theirs' }),
    );
    expect(() => held.check()).toThrow(LockLostError);
    await expect(
      gate.open(
        journal,
        undefined,
        { reference: 'lost-1', kind: 'deposit', step: 'status', hash_token: 'h' },
        'x',
      ),
    ).rejects.toBeInstanceOf(LockLostError);
    expect(journal.find('lost-1')).toBeUndefined();
    await held();
  });

  it("holds the run from a step's 'sent' line until it is closed; a refused step holds nothing", async () => {
    const held: string[] = [];
    const gate = testGate('sandbox', {
      hold: () => {
        held.push('hold');
        return () => held.push('let go');
      },
    });
    const journal = new Journal(tempDir(), 'default', 'sandbox');
    const at = { reference: 'held-1', kind: 'deposit', step: 'status', hash_token: 'h' } as const;
    const opened = await gate.open(journal, undefined, at, 'x');
    expect(held).toEqual(['hold']);
    expect(journal.find('held-1')?.steps.map((e) => e.outcome)).toEqual(['sent']);
    await opened.close();
    expect(held).toEqual(['hold', 'let go']);
    // a live server, no --yes and no terminal: refused before any 'sent' line, nothing held
    const live = testGate('live', { hold: () => (held.push('hold'), () => held.push('let go')) });
    await expect(live.open(journal, undefined, { ...at, reference: 'held-2' }, 'x')).rejects.toThrow();
    expect(journal.find('held-2')).toBeUndefined();
    expect(held).toEqual(['hold', 'let go']);
  });

  /** A status step's open ticket from the gate, and the takeover of its lock by another mpay. */
  async function openTicketToTakeOver(reference: string, hash: string) {
    const dir = tempDir();
    const journal = new Journal(dir, 'default', 'sandbox');
    const opened = await testGate('sandbox').open(
      journal,
      undefined,
      { reference, kind: 'deposit', step: 'status', hash_token: hash },
      'x',
    );
    const locks = join(dir, 'journal', 'locks');
    const path = join(
      locks,
      readdirSync(locks).find((n) => n.endsWith('.owner'))!,
    );
    // the owner file names another holder
    const takeOver = () =>
      writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), token: 'theirs' }));
    return { opened, takeOver };
  }

  it('a ticket stands on its lock: a lock taken over after the ticket was issued stops the request at the wire', async () => {
    const sb = await strictSandbox();
    sb.allowReads();
    try {
      const { opened, takeOver } = await openTicketToTakeOver('lost-2', 'h2');
      // Taken over between the gate and the wire (a 429's wait, a pause).
      takeOver();
      await expect(
        demoClient(sb.url).statusUpdate(
          { hash_token: 'h2', status: 'failed', gateway_id: 1 },
          { ticket: opened.ticket },
        ),
      ).rejects.toBeInstanceOf(LockLostError);
      await opened.close();
      sb.verify();
    } finally {
      await sb.close();
    }
  });

  it('a lock taken over while its request waits for the pacer’s turn stops the request at the wire', async () => {
    const sb = await strictSandbox();
    sb.allowReads();
    try {
      const { opened, takeOver } = await openTicketToTakeOver('lost-3', 'h3');
      // The request's turn comes after the ticket's verification: the takeover happens while it waits. The
      // client has its token first (a read), so that the money call's turn is the only one taken after.
      const pacer = new Pacer();
      const client = demoClient(sb.url, { pacer });
      await client.merchantCurrencies();
      let turns = 0;
      pacer.turn = () => {
        turns++;
        takeOver();
        return 0;
      };
      await expect(
        client.statusUpdate({ hash_token: 'h3', status: 'failed', gateway_id: 1 }, { ticket: opened.ticket }),
      ).rejects.toBeInstanceOf(LockLostError);
      expect(turns).toBe(1);
      await opened.close();
      sb.verify();
    } finally {
      await sb.close();
    }
  });
});

describe('a holder whose lock was taken over during a wait', () => {
  it("journals its unsent step as taken over, sends nothing more, and history's last step stays the other's", async () => {
    const cfg = tempDir();
    const journalDir = join(cfg, 'journal');
    let sentLine: Record<string, unknown> | undefined;
    const server = await loopbackServer((req, res) => {
      if (req.url?.includes('token/generate')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, data: { token: 'tok-lost' } }));
        return;
      }
      // While the first try is answered 429, another mpay takes the lock over (this one was paused past its
      // stale time) and finishes the step: its owner file and its journal lines.
      const owner = join(
        journalDir,
        'locks',
        readdirSync(join(journalDir, 'locks')).find((n) => n.endsWith('.owner'))!,
      );
      writeFileSync(
        owner,
        JSON.stringify({ ...JSON.parse(readFileSync(owner, 'utf8')), pid: 1, token: 'theirs' }),
      );
      sentLine = (allJournalEvents(cfg) as unknown as Record<string, unknown>[]).find(
        (e) => e.outcome === 'sent',
      );
      const other = new Journal(cfg, 'default', 'sandbox', { place: sentLine!.place as never });
      const { reference, kind, step, hash_token } = sentLine as never as Parameters<Journal['append']>[0];
      other.append({ reference, kind, step, hash_token, outcome: 'sent' });
      other.append({ reference, kind, step, hash_token, outcome: 'ok', data: { status: 'failed' } });
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, message: 'slow down' }));
    });
    try {
      const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: server.url });
      const r = await run(['status', 'hashlost0001', '--status', 'failed', '--gateway', '1'], { env });
      expect(r.code).toBe(11);
      expect(r.stderr).toMatch(/took over the lock .* sends nothing more/);
      expect(server.hits.get('POST /restapi/v1/payments/status/update')).toBe(1);
      const shown = await run(['history', 'show', String(sentLine!.reference), '--json'], { env });
      const steps = shown.json().steps as { step: string; outcome: string; detail?: string }[];
      // this process's step: abandoned, saying why; the other's: its answer, last
      expect(steps.map((s) => `${s.step} ${s.outcome}`)).toEqual(['status taken_over', 'status ok']);
      expect(steps[0]!.detail).toMatch(/took over the lock/);
      expect(shown.json().status).toBe('failed');
    } finally {
      await server.close();
    }
  });
});

describe('a journal that fails after a request left', () => {
  let sb: StrictSandbox;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  it('makes the row unknown, never failed, and names the hash token the answer carried', async () => {
    const dir = tempDir();
    const journal = new Journal(dir, 'default', 'sandbox');
    // The journal's folder becomes unwritable once the initiate left: its outcome line cannot be written.
    const failing = Object.assign(Object.create(journal) as Journal, {
      append: (e: Parameters<Journal['append']>[0]) => {
        if (e.outcome === 'ok') throw new Error('EACCES: permission denied');
        return journal.append(e);
      },
    });
    const tickets = runTickets();
    const client = ticketedClient(sb.url, tickets);
    sb.expect('POST /payments/initiate');
    const res = await runRow(
      'deposit',
      {
        row: 1,
        values: {
          currency: 'GHS',
          country: 'GH',
          amount: '10',
          first_name: 'Ama',
          phone: '+233201234567',
          email: 'ama@example.com',
          gateway: '1',
          reference: 'jr-1',
        },
      },
      { client, journal: failing, env: 'sandbox', gate: new MoneyGate('sandbox', { issue: tickets.issue }) },
    );
    sb.verify();
    expect(res.outcome).toBe('unknown');
    expect(res.hash_token).toMatch(/^[0-9a-f]{16,}$/);
    expect(res.error?.message).toContain(`its hash token is ${res.hash_token}`);
  });
});

describe('a POST is never sent twice on a 503', () => {
  // got retries a 5xx itself when a call asks it to (GETs and token generate do), but not when the answer
  // carries Retry-After (http.ts waits that out in its own loop): each status below is tried with and
  // without it, so that neither got's retry nor the wait loop can send a money POST twice unseen.
  const answers: [number, Record<string, string>][] = [
    [503, { 'retry-after': '0' }],
    [503, {}],
    [500, {}],
    [502, {}],
    [504, {}],
  ];
  it('a 503 with or without Retry-After, or a 500, 502 or 504, to a money POST is an answer, not a wait: one request', async () => {
    for (const [status, headers] of answers) {
      const server = await loopbackServer((req, res) => {
        if (req.url?.includes('token/generate')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ success: true, data: { token: 'tok-503' } }));
          return;
        }
        res.writeHead(status, { ...headers, 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, message: 'busy' }));
      });
      const what = `${status} ${JSON.stringify(headers)}`;
      try {
        const cfg = tempDir();
        const r = await run(
          ['api', 'POST', 'payments/initiate', '--credentials', '-f', 'customer_transaction_id=r503'],
          { env: cliEnv(undefined, cfg, { MPAY_BASE_URL: server.url, MPAY_RETRY_BASE_MS: '1' }) },
        );
        expect(r.code, what).toBe(7);
        expect(server.hits.get('POST /restapi/v1/payments/initiate'), what).toBe(1);
      } finally {
        await server.close();
      }
    }
  });
});

describe('every command that can reach a money endpoint passes the gate', () => {
  let sb: StrictSandbox;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  /** Commands that build no money request of their own (proxy forwards others', and is tested apart). */
  const noMoney = [
    'auth:migrate',
    'auth:status',
    'balances',
    'config:get',
    'config:list',
    'config:set',
    'countries',
    'currencies',
    'docs',
    'history',
    'history:export',
    'history:move',
    'history:prune',
    'history:show',
    'login',
    'logout',
    'profiles:list',
    'profiles:remove',
    'profiles:use',
    'proxy',
    'sandbox',
    'token',
    'whoami',
  ];

  it('in live, without a terminal or --yes, none of them sends a money request; a new command must be listed here', async () => {
    const { COMMANDS } = await import('../src/execute.js');
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: sb.url, MPAY_ENV: 'live' });
    const hash = 'ab'.repeat(32);
    // The scene, confirmed with --yes: a withdrawal stopped at its code, and its trace.
    for (const route of ['withdraw/initiate', 'status/update', 'withdraw/processed'])
      sb.expect(`POST /payments/${route}`);
    const w = await run(
      [
        'withdraw',
        ...customerArgs({ reference: 'walk-1' }),
        '--yes',
        '--trace',
        join(cfg, 'w.har'),
        '--json',
      ],
      { env },
    );
    expect(w.code, w.stderr).toBe(0);
    expect(w.json().next).toBe('otp');
    sb.verify();
    const rows = file(
      'walk.csv',
      'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,12,Kofi,+233241234567,kofi@example.com,1\n',
    );
    const codes = file('walk-codes.csv', 'reference,otp\nwalk-1,123456\n');
    // An initiate that had no answer, for `history resolve --check` (which sends it again)
    const { place } = allJournalEvents(cfg)[0]!;
    const customer = { first_name: 'Ama', phone: '+233201234567', email: 'ama@example.com' };
    const data = { amount: '10', currency: 'GHS', country: 'GH', customer };
    new Journal(cfg, place!.profile, place!.env, { place }).append({
      reference: 'walk-u',
      kind: 'deposit',
      data,
      step: 'initiate',
      outcome: 'sent',
    });
    const money: Record<string, string[]> = {
      api: ['api', 'POST', 'payments/initiate', '--credentials', '-f', 'customer_transaction_id=walk-api'],
      deposit: ['deposit', ...customerArgs({ reference: 'walk-d' })],
      'deposit:initiate': ['deposit', 'initiate', ...customerArgs({ reference: 'walk-di', gateway: '' })],
      'deposit:process': ['deposit', 'process', hash, '--phone-number', '+233201234567'],
      'deposit:batch': ['deposit', 'batch', rows],
      withdraw: ['withdraw', ...customerArgs({ reference: 'walk-w' })],
      'withdraw:initiate': ['withdraw', 'initiate', ...customerArgs({ reference: 'walk-wi', gateway: '' })],
      'withdraw:process': [
        'withdraw',
        'process',
        hash,
        '--otp',
        '123456',
        '--phone-number',
        '+233201234567',
        '--email',
        'ama@example.com',
      ],
      'withdraw:batch': ['withdraw', 'batch', rows],
      'withdraw:batch:confirm': ['withdraw', 'batch', 'confirm', codes],
      status: ['status', hash, '--status', 'failed', '--gateway', '1'],
      wallet: ['wallet', hash, '--gateway', '2'],
      doctor: ['doctor'],
      replay: ['replay', join(cfg, 'w.har')],
      run: [
        'run',
        file(
          'walk.yaml',
          `steps:\n  - run: status\n    args: ["${hash}"]\n    flags: { status: failed, gateway: 1 }\n`,
        ),
      ],
      'history:resolve': ['history', 'resolve', 'walk-u', '--check'],
      'support:bundle': ['support', 'bundle', '--out', join(cfg, 'b.tar.gz')],
      // its own embedded sandbox, never the profile's server: the walk gives it no way to a money endpoint
      demo: ['demo', '--help'],
      // an assistant's deposit through a client that cannot ask the person (its lines on stdin below)
      mcp: ['mcp', '--yes'],
    };
    const mcpInput = [
      {
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'walk', version: '1' },
        },
      },
      { method: 'notifications/initialized' },
      {
        id: 2,
        method: 'tools/call',
        params: {
          name: 'deposit',
          arguments: {
            currency: 'GHS',
            country: 'GH',
            amount: '10',
            first_name: 'Ama',
            phone: '+233201234567',
            email: 'ama@example.com',
            gateway: '1',
            reference: 'walk-mcp',
          },
        },
      },
    ]
      .map((m) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`)
      .join('');
    expect([...noMoney, ...Object.keys(money)].sort()).toEqual(Object.keys(COMMANDS).sort());
    const before = journalLines(cfg);
    for (const [id, args] of Object.entries(money)) {
      if (id === 'mcp') {
        // no terminal here: the person cannot be asked, and --yes does not stand in for them
        const m = await run(args, { env, input: mcpInput });
        sb.verify();
        expect(m.code, m.stderr).toBe(0);
        expect(ndjson(m.stdout).find((x) => x.id === 2).result.structuredContent.error.kind).toBe(
          'confirmation_required',
        );
        continue;
      }
      const r = await run([...args, '--json'], { env });
      sb.verify();
      if (['doctor', 'support:bundle', 'demo'].includes(id)) continue;
      expect(r.code, `${id}: ${r.stdout}${r.stderr}`).not.toBe(0);
      // refused by the gate itself, not by something before it
      expect(`${r.stdout}${r.stderr}`, id).toMatch(/live server .*pass --yes/);
    }
    // Nothing reached a money endpoint, and no command journaled a money step it did not send.
    expect(journalLines(cfg)).toEqual(before);
  });
});

// The gate itself (flows/gate/money-gate.ts), in this process: what it asks, when, and in what words; what it
// refuses and prints; what a opened leaves in the journal, the lock folder and the ticket it issues.
describe('the money gate', () => {
  const live: ServerVerdict = { server: 'https://pay.example', live: true, why: 'its profile says live' };
  const test: ServerVerdict = { server: 'http://127.0.0.1:9', live: false, why: 'a loopback address' };

  /** A prompter that answers `answers` in turn and keeps each question with its default. */
  function asker(...answers: boolean[]) {
    const asked: { message: string; default?: boolean }[] = [];
    const prompter = {
      confirm: async (o: { message: string; default?: boolean }) => {
        asked.push(o);
        if (!answers.length) throw new Error(`asked once too often: ${o.message}`);
        return answers.shift()!;
      },
    } as unknown as Prompter;
    return { asked, prompter };
  }

  const initiate = (reference: string) => ({
    method: 'POST',
    url: 'http://127.0.0.1:9/restapi/v1/payments/withdraw/initiate',
    body: { customer_transaction_id: reference },
  });

  it('live, no terminal, no --yes: refused (exit 16) naming the move, the server and why; nothing asked', async () => {
    const gate = new MoneyGate(live);
    const err = await gate.pass({ what: 'this deposit of 20 GHS' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfirmationRequiredError);
    expect((err as Error).message).toBe(
      'Nothing was sent: this deposit of 20 GHS would move real money on the live server https://pay.example (its profile says live): pass --yes to confirm',
    );
    expect((err as ConfirmationRequiredError).hint).toBe(
      'Pass --yes once you have checked the server and the amount, or run it on a terminal to be asked',
    );
    expect(exitCodes[(err as ConfirmationRequiredError).kind]).toBe(16);
    // a dry run sends nothing: nothing to refuse
    await expect(gate.pass({ what: 'x' }, true)).resolves.toBeUndefined();
    // an environment's name alone
    await expect(new MoneyGate('live').pass({ what: 'x' })).rejects.toThrow(
      'on the live server this server (the live environment)',
    );
    await expect(new MoneyGate('sandbox').pass({ what: 'x' })).resolves.toBeUndefined();
  });

  it('live on a terminal: asks once a run, default no; no is cancelled, nothing sent', async () => {
    const no = asker(false);
    const err = await new MoneyGate(live, { prompter: no.prompter })
      .pass({ what: 'the withdrawal (w-1)' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect((err as Error).message).toBe('Cancelled at the live confirmation; nothing was sent');
    expect(no.asked).toEqual([
      {
        message: 'LIVE server https://pay.example, real money: the withdrawal (w-1). Send it?',
        default: false,
      },
    ]);
    const yes = asker(true);
    const gate = new MoneyGate(live, { prompter: yes.prompter });
    await gate.pass({ what: 'a' });
    await gate.pass({ what: 'b' });
    await gate.pass({ what: 'c', batch: { question: 'Send these 2 deposits', rows: 2 } });
    expect(yes.asked).toHaveLength(1);
    // a refusal is asked again at the next step
    const twice = asker(false, true);
    const again = new MoneyGate(live, { prompter: twice.prompter });
    await expect(again.pass({ what: 'a' })).rejects.toBeInstanceOf(CancelledError);
    await again.pass({ what: 'a' });
    expect(twice.asked).toHaveLength(2);
    // not live: never asked, whatever the terminal
    const none = asker();
    await new MoneyGate(test, { prompter: none.prompter }).pass({ what: 'a' });
    expect(none.asked).toEqual([]);
  });

  it('--yes: nothing asked, live or batch; a batch on a terminal is asked its question in every environment', async () => {
    const quiet = asker();
    await new MoneyGate(live, { yes: true, prompter: quiet.prompter }).pass({
      what: 'a',
      batch: { question: 'Send these 3 withdrawals', rows: 3 },
    });
    await new MoneyGate(live, { yes: true }).pass({ what: 'a' });
    expect(quiet.asked).toEqual([]);
    const batch = { question: 'Send these 3 withdrawals', rows: 3 };
    const here = asker(true);
    const gate = new MoneyGate(test, { prompter: here.prompter });
    await gate.pass({ what: 'a', batch });
    await gate.pass({ what: 'b', batch });
    expect(here.asked).toEqual([{ message: 'Send these 3 withdrawals?', default: false }]);
    const there = asker(false);
    const err = await new MoneyGate(live, { prompter: there.prompter })
      .pass({ what: 'a', batch })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect((err as Error).message).toBe('Cancelled; nothing was sent');
    expect(there.asked).toEqual([
      {
        message: 'Send these 3 withdrawals on the live server https://pay.example (LIVE, real money)?',
        default: false,
      },
    ]);
    // a batch with no terminal on a test server goes; on a live one it needs --yes
    await new MoneyGate(test).pass({ what: 'a', batch });
    await expect(new MoneyGate(live).pass({ what: 'a', batch })).rejects.toBeInstanceOf(
      ConfirmationRequiredError,
    );
  });

  it('a server an mpay proxy said is live is live, and every word says it is behind the proxy', async () => {
    let heard = false;
    const gate = new MoneyGate(test, { upstreamLive: () => heard });
    expect(gate.live).toBe(false);
    expect(gate.liveHeader).toBeUndefined();
    expect(() => gate.printable('the deposit (d-1)')).not.toThrow();
    heard = true;
    expect(gate.live).toBe(true);
    const behind = 'the live server behind the mpay proxy at http://127.0.0.1:9';
    expect(gate.liveHeader).toBe(
      `# LIVE: this moves REAL money on ${behind}; mpay does not journal or confirm it`,
    );
    await expect(gate.pass({ what: 'x' })).rejects.toThrow(
      `would move real money on ${behind} (a loopback address)`,
    );
    // a server live itself is named as itself
    expect(new MoneyGate(live, { upstreamLive: () => true }).liveHeader).toBe(
      '# LIVE: this moves REAL money on the live server https://pay.example; mpay does not journal or confirm it',
    );
  });

  it('a printed money command for a live server needs --yes (a usage error otherwise); for a test server none', () => {
    expect(() => new MoneyGate(test).printable('x')).not.toThrow();
    expect(() => new MoneyGate(live, { yes: true }).printable('x')).not.toThrow();
    let err: unknown;
    try {
      new MoneyGate(live).printable('the deposit (d-1)');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      "Not printed: the deposit (d-1) would be a command that moves real money on the live server https://pay.example, outside mpay's journal and its confirmation",
    );
    expect((err as UsageError).hint).toBe('Pass --yes to print it anyway');
  });

  it("open: the synced 'sent' line, then a ticket for that step and reference alone, which close revokes and whose lock it frees", async () => {
    const cfg = tempDir();
    const tickets = runTickets();
    const place: Place = {
      server: 'http://127.0.0.1:9',
      merchant: 'mk-1',
      profile: 'default',
      env: 'sandbox',
    };
    const journal = new Journal(cfg, 'default', 'sandbox', { place });
    const gate = new MoneyGate(live, { yes: true, issue: tickets.issue });
    const opened = await gate.open(
      journal,
      place,
      { reference: 'g-1', kind: 'withdraw', step: 'initiate' },
      'x',
    );
    expect(opened.live).toBe(true);
    expect(journal.eventsOf('g-1').map((e) => [e.step, e.outcome, e.place])).toEqual([
      ['initiate', 'sent', place],
    ]);
    // the ticket lets through this initiate, for a live server, and nothing else
    expect(tickets.verify(opened.ticket, initiate('g-1'))).toMatchObject({
      step: 'initiate',
      kind: 'withdraw',
      live: true,
    });
    expect(() => tickets.verify(opened.ticket, initiate('g-2'))).toThrow(
      'carries another customer_transaction_id',
    );
    expect(() =>
      tickets.verify(opened.ticket, {
        ...initiate('g-1'),
        url: 'http://127.0.0.1:9/restapi/v1/payments/initiate',
      }),
    ).toThrow('a ticket for another step');
    // the transaction's lock is held under its place and reference: another holder (another host) is refused
    const locks = join(cfg, 'journal', 'locks');
    const name = lockName('transaction', place.server, place.merchant, 'g-1');
    expect(readdirSync(locks).sort()).toEqual([`${name}.lock`, `${name}.owner`]);
    await opened.close();
    expect(() => tickets.verify(opened.ticket, initiate('g-1'))).toThrow('a ticket already used');
    expect(readdirSync(locks)).toEqual([]);
    // a later step carries its hash token (an OTP's step is the processed endpoint's)
    const otp = await gate.open(
      journal,
      place,
      { reference: 'g-1', kind: 'withdraw', step: 'otp', hash_token: 'abc123abc123' },
      'x',
    );
    const processed = {
      method: 'POST',
      url: 'http://127.0.0.1:9/restapi/v1/payments/withdraw/processed',
      body: { hash_token: 'abc123abc123' },
    };
    expect(tickets.verify(otp.ticket, processed)).toMatchObject({ step: 'processed' });
    expect(() => tickets.verify(otp.ticket, { ...processed, body: { hash_token: 'other' } })).toThrow(
      'carries another hash_token',
    );
    await otp.close();
    // a test server's ticket says so
    const plain = await new MoneyGate(test, { issue: tickets.issue }).open(
      journal,
      place,
      { reference: 'g-3', kind: 'withdraw', step: 'initiate' },
      'x',
    );
    expect(plain.live).toBe(false);
    expect(tickets.verify(plain.ticket, initiate('g-3'))).toMatchObject({ live: false });
    await plain.close();
    // live without --yes or a terminal: refused naming the step and its reference, nothing journaled
    await expect(
      new MoneyGate(live, { issue: tickets.issue }).open(
        journal,
        place,
        { reference: 'g-4', kind: 'withdraw', step: 'initiate' },
        'Initiating the withdrawal',
      ),
    ).rejects.toThrow('Nothing was sent: Initiating the withdrawal (g-4) would move real money');
    expect(journal.eventsOf('g-4')).toEqual([]);
  });

  it('open refuses, writing nothing, when the lock is held elsewhere, and frees the lock when the journal cannot be written', async () => {
    const cfg = tempDir();
    const journal = new Journal(cfg, 'default', 'sandbox');
    const locks = join(cfg, 'journal', 'locks');
    mkdirSync(locks, { recursive: true, mode: 0o700 });
    const name = lockName('transaction', '', '', 'held-1');
    mkdirSync(join(locks, `${name}.lock`));
    const since = new Date().toISOString();
    writeFileSync(
      join(locks, `${name}.owner`),
      JSON.stringify({ pid: 1, host: 'another-host', since, token: 'theirs' }),
      { mode: 0o600 },
    );
    const err = await testGate('sandbox')
      .open(journal, undefined, { reference: 'held-1', kind: 'deposit', step: 'initiate' }, 'x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusyError);
    expect((err as Error).message).toBe(
      `Another mpay process (pid 1 on another-host, since ${since.slice(0, 19).replace('T', ' ')} UTC) is running the deposit held-1 right now; nothing was sent`,
    );
    await expect(
      testGate('sandbox').open(
        journal,
        undefined,
        { reference: 'held-1', kind: 'withdraw', step: 'initiate' },
        'x',
      ),
    ).rejects.toThrow('is running the withdrawal held-1 right now');
    expect(journal.events()).toEqual([]);
    // the journal's database replaced by a folder: the append fails (journaled.ts says nothing was sent), and the lock is freed
    const broken = tempDir();
    const bad = new Journal(broken, 'default', 'sandbox');
    mkdirSync(join(broken, 'journal', 'journal.db'), { recursive: true, mode: 0o700 });
    const failed = await testGate('sandbox')
      .open(bad, undefined, { reference: 'free-1', kind: 'deposit', step: 'initiate' }, 'x')
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(LocalFileError);
    expect((failed as Error).message).toMatch(/journal\.db is not a file/);
    expect(readdirSync(join(broken, 'journal', 'locks'))).toEqual([]);
  });

  it('the credentials probe: journaled as a probe before it goes, never to a live server unasked, its outcome recorded', async () => {
    const cfg = tempDir();
    const tickets = runTickets();
    const journal = new Journal(cfg, 'default', 'sandbox');
    expect(
      await new MoneyGate(live, { yes: true, issue: tickets.issue }).probe(false, journal),
    ).toBeUndefined();
    expect(journal.events()).toEqual([]);
    // live and asked for: the live question first
    const no = asker(false);
    await expect(
      new MoneyGate(live, { prompter: no.prompter, issue: tickets.issue }).probe(true, journal),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(no.asked[0]!.message).toBe(
      'LIVE server https://pay.example, real money: the API-key check (a withdraw initiate of the credentials alone). Send it?',
    );
    expect(journal.events()).toEqual([]);
    const p = (await new MoneyGate(test, { issue: tickets.issue }).probe(false, journal))!;
    expect(p.reference).toMatch(/^probe-\d{14}-[0-9a-f]{6}$/);
    expect(p.live).toBe(false);
    expect(journal.eventsOf(p.reference).map((e) => [e.kind, e.step, e.outcome, e.data])).toEqual([
      ['withdraw', 'initiate', 'sent', { probe: true }],
    ]);
    // its ticket lets through a withdraw initiate that carries no reference, and only that
    const bare = { ...initiate(''), body: {} };
    expect(tickets.verify(p.ticket, bare)).toMatchObject({ step: 'initiate', live: false });
    expect(() => tickets.verify(p.ticket, initiate('x-1'))).toThrow(
      'carries another customer_transaction_id',
    );
    p.record('ok', { hash_token: 'feedbeef01' });
    expect(journal.find(p.reference)).toMatchObject({ probe: true, hash_token: 'feedbeef01' });
    expect(journal.eventsOf(p.reference).at(-1)).toMatchObject({
      outcome: 'ok',
      data: { probe: true, hash_token: 'feedbeef01' },
    });
    await p.close();
    expect(() => tickets.verify(p.ticket, bare)).toThrow('a ticket already used');
    // a journal that cannot be written: the probe is not sent
    const broken = tempDir();
    const bad = new Journal(broken, 'default', 'sandbox');
    mkdirSync(join(broken, 'journal', 'journal.db'), { recursive: true, mode: 0o700 });
    await expect(new MoneyGate(test, { issue: tickets.issue }).probe(false, bad)).rejects.toThrow(
      /^Nothing was sent: /,
    );
  });

  it('a local failure before a request left says "Nothing was sent" once', () => {
    const err = new LocalFileError('Cannot write the journal');
    expect((nothingSent(nothingSent(err)) as Error).message).toBe(
      'Nothing was sent: Cannot write the journal',
    );
    const other = new UsageError('bad flag');
    expect((nothingSent(other) as Error).message).toBe('bad flag');
  });
});
