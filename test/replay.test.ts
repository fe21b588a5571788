// mpay replay FILE: a trace recorded on one sandbox, sent again to another (and to one with other data), with
// a fresh token, fresh references and mapped hash tokens; a withdrawal's code from --otp; a support bundle;
// the live gate; a browser's HAR with other hosts and secrets in it; and mpay sandbox --catalogue, which
// serves a merchant's own currencies from a trace. What the person sees afterwards is checked too: the
// journal, and each sandbox's count of requests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { replayDiffersExitCode } from '../src/common/errors.js';
import { cliEnv, customerArgs, requestCounts, sandbox, tempDir, journalText, mergedHar } from './helpers.js';
import { readHar } from '../src/api/har-read.js';
import { mpay } from './in-process.js';
import { strictSandbox } from './strict.js';

/** The money calls of the recorded deposit (its wallet step included), as the strict sandbox names them. */
const depositMoney = [
  'POST /payments/initiate',
  'POST /payments/crypto/wallet/address/update',
  'POST /payments/status/update',
  'POST /payments/processed',
];

type Sb = Awaited<ReturnType<typeof sandbox>>;
let a: Sb; // where the traces are recorded
let b: Sb; // where they are replayed: same data, another server
let alt: Sb; // other data: the alt seed
let depositTrace: string;
let withdrawTrace: string;
let recordedReference: string;

const deposit = [
  'deposit',
  '--currency',
  'USD',
  '--country',
  'US',
  '--amount',
  '20',
  '--first-name',
  'Ama',
  '--phone',
  '+15551234567',
  '--email',
  'ama@example.com',
  '--gateway',
  '5', // USDT on TRC20: the flow has its wallet address update
];

const total = (c: Record<string, number>) => Object.values(c).reduce((x, y) => x + y, 0);
const transactions = async (sb: Pick<Sb, 'url'>) =>
  (await (await fetch(`${sb.url}/_sandbox/transactions`)).json()) as Array<{
    reference: string;
    status: string;
    wallet_address?: string;
    customer: { first_name: string; email: string; phone: string };
  }>;

beforeAll(async () => {
  [a, b, alt] = await Promise.all([sandbox(), sandbox(), sandbox({ seed: 'alt' })]);
  const dir = tempDir();
  depositTrace = join(dir, 'deposit.har');
  withdrawTrace = join(dir, 'withdraw.har');
  const env = cliEnv(a, tempDir());
  const d = await mpay([...deposit, '--trace', depositTrace, '--json'], { env });
  expect(d.code, d.stderr).toBe(0);
  recordedReference = d.json().reference;
  const w = await mpay(
    [
      'withdraw',
      '--currency',
      'GHS',
      '--amount',
      '20',
      '--first-name',
      'Kofi',
      '--phone',
      '+233209876540',
      '--email',
      'kofi@example.com',
      '--gateway',
      '1',
      '--otp',
      demoMerchant.otp,
      '--trace',
      withdrawTrace,
      '--json',
    ],
    { env },
  );
  expect(w.code, w.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), alt.close()]);
});

describe('a deposit with its wallet step, replayed on a second sandbox', () => {
  it('answers as recorded (exit 0), under a fresh reference; the journal and both sandboxes show it', async () => {
    const before = await requestCounts(a);
    const cfg = tempDir();
    const env = cliEnv(b, cfg);
    const r = await mpay(['replay', depositTrace, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const calls = r.json();
    // each path as the text writes it: with its leading /
    expect(calls.map((c: { method: string; path: string }) => `${c.method} ${c.path}`)).toEqual([
      'POST /auth/merchant/token/generate',
      'GET /merchant/currencies',
      'POST /payments/initiate',
      'POST /payments/crypto/wallet/address/update',
      'POST /payments/status/update',
      'POST /payments/processed',
    ]);
    for (const c of calls) {
      expect(c.same, JSON.stringify(c.differences)).toBe(true);
      expect(c.differences).toEqual([]);
      expect(c.replayed.status).toBe(c.recorded.status);
      expect(c.replayed.flag).toBe(true);
      expect(Object.keys(c.replayed.shape).length).toBeGreaterThan(2);
    }
    const initiate = calls[2];
    expect(initiate.recorded_reference).toBe(recordedReference);
    // a new reference as every flow makes one: its kind, a time, six random hex digits
    expect(initiate.reference).toMatch(/^mpay-d-[0-9a-z]+-[0-9a-f]{6}$/);
    expect(initiate.reference).not.toBe(recordedReference);
    // The second sandbox has one transaction, the replayed one, processed, its wallet address set; the
    // recorded reference never reached it.
    const txs = await transactions(b);
    expect(txs.map((t) => t.reference)).toEqual([initiate.reference]);
    expect(txs[0]!.status).toBe('pending');
    expect(txs[0]!.wallet_address).toBeTruthy();
    const counts = await requestCounts(b);
    expect(counts).toEqual({
      'POST /auth/merchant/token/generate': 1,
      'GET /merchant/currencies': 1,
      'POST /payments/initiate': 1,
      'POST /payments/crypto/wallet/address/update': 1,
      'POST /payments/status/update': 1,
      'POST /payments/processed': 1,
    });
    // The recording sandbox heard nothing of the replay.
    expect(await requestCounts(a)).toEqual(before);
    // The journal: the replayed deposit, each step journaled, under its new reference.
    const h = await mpay(['history', 'show', initiate.reference, '--json'], { env });
    expect(h.code, h.stderr).toBe(0);
    const record = h.json();
    expect(record.reference).toBe(initiate.reference);
    expect(record.hash_token).toBe(initiate.hash_token);
    expect(record.status).toBe('pending');
    const journal = journalText(cfg);
    for (const step of ['initiate', 'wallet', 'status', 'processed'])
      expect(journal).toMatch(new RegExp(`"step":"${step}"[^\\n]*"outcome":"sent"`));
    // The recorded reference is only named, as what was replayed; it was never sent (the sandbox above).
    const sent = journal.split('\n').find((l) => l.includes('"step":"initiate"') && l.includes('"sent"'))!;
    expect(JSON.parse(sent).reference).toBe(initiate.reference);
    expect(JSON.parse(sent).data.replay_of).toBe(recordedReference);
  });

  it('shows each call with the recorded answer beside the new one, without --json', async () => {
    const r = await mpay(['replay', depositTrace], { env: cliEnv(b, tempDir()) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/3\. POST \/payments\/initiate {2}same/);
    expect(r.stdout).toMatch(/recorded: 200 true "Payment initiated successfully\."/);
    expect(r.stdout).toMatch(/replayed: 200 true "Payment initiated successfully\."/);
    expect(r.stdout).toContain('All 6 calls answered as recorded');
  });

  it('a dry run prints the calls it would send and sends nothing', async () => {
    // nothing declared: any request at all fails the test
    const fresh = await strictSandbox();
    try {
      const r = await mpay(['replay', depositTrace, '--dry-run', '--json'], {
        env: cliEnv(fresh, tempDir()),
      });
      expect(r.code, r.stderr).toBe(0);
      const plan = r.json();
      expect(plan).toHaveLength(6);
      expect(plan[2].path).toBe('/payments/initiate');
      // the text's lines and the document's paths alike
      const text = await mpay(['replay', depositTrace, '--dry-run'], { env: cliEnv(fresh, tempDir()) });
      for (const p of plan as { index: number; method: string; path: string }[])
        expect(text.stdout).toContain(`${p.index}. ${p.method} ${p.path}`);
      expect(plan[2].body.customer_transaction_id).toBe('<a new reference>');
      expect(plan[3].body.hash_token).toBe('<the hash token of call 3>');
      expect(JSON.stringify(plan)).not.toContain(recordedReference);
      fresh.verify();
    } finally {
      await fresh.close();
    }
  });
});

it('against a server with other data: the differences listed, exit 13', async () => {
  const r = await mpay(['replay', depositTrace, '--json'], { env: cliEnv(alt, tempDir()) });
  expect(r.code).toBe(replayDiffersExitCode);
  expect(replayDiffersExitCode).toBe(13);
  const calls = r.json();
  expect(calls[0].same).toBe(true); // token generate answers alike
  const currencies = calls[1];
  expect(currencies.same).toBe(false);
  // numbers sent as strings, extra fields: each listed as a field with both types
  expect(currencies.differences).toContainEqual({
    what: 'field',
    path: 'data[].getway_configuration[].minimum_fees',
    recorded: 'number',
    replayed: 'string',
  });
  expect(currencies.differences).toContainEqual({
    what: 'field',
    path: 'data[].updated_at',
    recorded: 'absent',
    replayed: 'string',
  });
  // the alt data has no gateway 5: a step refused where the recording went through
  const refused = calls.find(
    (c: { replayed: { status: number } | null }) => c.replayed && c.replayed.status !== 200,
  );
  expect(refused.differences).toContainEqual({
    what: 'status',
    recorded: 200,
    replayed: refused.replayed.status,
  });
  const text = await mpay(['replay', depositTrace], { env: cliEnv(alt, tempDir()) });
  expect(text.code).toBe(13);
  expect(text.stdout).toMatch(/DIFFERS/);
  // each call's line in the text names its path as --json writes it
  for (const c of calls as { index: number; method: string; path: string }[])
    expect(text.stdout).toContain(`${c.index}. ${c.method} ${c.path}  `);
  // the text writes each field's path as --json does: the same path, the recorded and replayed types
  for (const d of currencies.differences.filter((x: { what: string }) => x.what === 'field').slice(0, 12))
    expect(text.stdout).toContain(`${d.path}: ${d.recorded} → ${d.replayed}`);
  expect(text.stdout).toMatch(/calls answered otherwise than recorded/);
  // beside the differences, the API's own words: its message, and what it said of each field it refused
  expect(text.stdout).toContain(`the API said: "${refused.replayed.message}"`);
  for (const said of refused.replayed.says ?? []) expect(text.stdout).toContain(said);
});

describe('one plan: the dry run shows what the replay sends, where', () => {
  /** The deposit trace as another merchant's: its site id 42, its customer Ama (ama@example.com). */
  function foreignTrace(): string {
    const har = JSON.parse(readFileSync(depositTrace, 'utf8'));
    for (const e of har.log.entries)
      if (e.request.url.endsWith('/payments/initiate')) {
        const body = JSON.parse(e.request.postData.text);
        e.request.postData.text = JSON.stringify({ ...body, site_id: '42' });
      }
    const file = join(tempDir(), 'foreign.har');
    writeFileSync(file, JSON.stringify(har));
    return file;
  }
  const placeholder = (v: unknown) => typeof v === 'string' && /^<.+>$/.test(v);

  it("--dry-run and the replay agree on every field sent, with the run's credentials; the dry run names the server", async () => {
    const c = await sandbox();
    try {
      const file = foreignTrace();
      const env = cliEnv(c, tempDir());
      const dry = await mpay(['replay', file, '--dry-run', '--json'], { env });
      expect(dry.code, dry.stderr).toBe(0);
      const plan = dry.json() as { url: string; path: string; body?: Record<string, unknown> }[];
      for (const p of plan) expect(p.url).toBe(`${c.url}/restapi/v1${p.path}`);
      const text = await mpay(['replay', file, '--dry-run'], { env });
      expect(text.stdout).toContain(`as they would go to ${c.url}`);
      // the profile's site id, not the trace's 42; the customer neutral (this server is not a sandbox)
      const initiate = plan.find((p) => p.path === '/payments/initiate')!;
      expect(initiate.body).toMatchObject({
        site_id: Number(demoMerchant.siteId),
        merchant_key: '***',
        api_key: '***',
        customer_first_name: 'Test',
        customer_email: 'customer@example.com',
        customer_transaction_id: '<a new reference>',
      });
      expect(JSON.stringify(plan)).not.toContain('ama@example.com');
      expect(await requestCounts(c)).toEqual({});
      // the replay, traced at the wire: each body as it went out, field by field, is the plan's
      const sentFile = join(tempDir(), 'sent.har');
      const r = await mpay(['replay', file, '--json', '--trace', sentFile], { env });
      expect(r.code, r.stderr).toBe(0);
      const sent = readHar(readFileSync(sentFile, 'utf8')).calls;
      expect(sent.map((s) => `/${s.path}`)).toEqual(plan.map((p) => p.path));
      sent.forEach((s, i) => {
        const planned = plan[i]!.body;
        expect(Object.keys(s.body ?? {}).sort(), plan[i]!.path).toEqual(Object.keys(planned ?? {}).sort());
        for (const [k, v] of Object.entries(planned ?? {}))
          if (!placeholder(v)) expect(s.body![k], `${plan[i]!.path} ${k}`).toEqual(v);
      });
      // and the server holds what was sent: the neutral customer, never the recorded one
      const [tx] = await transactions(c);
      expect(tx!.customer).toMatchObject({ first_name: 'Test', email: 'customer@example.com' });
    } finally {
      await c.close();
    }
  });

  it("--keep-customer sends the recorded customer: refused without --yes off a terminal; a profile's sandbox gets it as it is", async () => {
    const c = await sandbox();
    try {
      const file = foreignTrace();
      const env = cliEnv(c, tempDir());
      const refused = await mpay(['replay', file, '--keep-customer', '--json'], { env });
      expect(refused.code).toBe(2);
      expect(refused.json().error.message).toMatch(/Nothing was sent: --keep-customer would send/);
      expect(await requestCounts(c)).toEqual({});
      const kept = await mpay(['replay', file, '--keep-customer', '--yes', '--json'], { env });
      expect(kept.code, kept.stderr).toBe(0);
      expect((await transactions(c))[0]!.customer).toMatchObject({
        first_name: 'Ama',
        email: 'ama@example.com',
      });
      // a server a profile keeps as its sandbox: the recorded customer without asking
      const cfg = tempDir();
      const set = await mpay(['config', 'set', 'sandbox.base_url', c.url], { env: cliEnv(c, cfg) });
      expect(set.code, set.stderr).toBe(0);
      const onSandbox = await mpay(['replay', file, '--json'], { env: cliEnv(c, cfg) });
      expect(onSandbox.code, onSandbox.stderr).toBe(0);
      const txs = await transactions(c);
      expect(txs).toHaveLength(2);
      expect(txs[1]!.customer).toMatchObject({ email: 'ama@example.com' });
    } finally {
      await c.close();
    }
  });
});

it("a trace's recorded failures answered the same again: reproduced, every call sent, exit 0", async () => {
  // recorded with one --trace over four commands: a deposit processed, then a status update and another
  // processed of it, both answered 404 (the transaction is no longer initiated)
  const rec = await sandbox();
  const other = await sandbox();
  try {
    const env = cliEnv(rec, tempDir());
    const t = join(tempDir(), 'ticket.har');
    const ref = `rf-${Date.now()}`;
    const d = await mpay(
      ['deposit', 'initiate', ...customerArgs({ reference: ref, gateway: '' }), '--trace', t, '--json'],
      { env },
    );
    expect(d.code, d.stderr).toBe(0);
    const hash = d.json().hash_token as string;
    expect((await mpay(['deposit', 'process', ref, '--trace', t, '--json'], { env })).code).toBe(0);
    const su = await mpay(
      [
        'api',
        'POST',
        '/payments/status/update',
        '-f',
        `hash_token=${hash}`,
        '-f',
        'status=initiated',
        '-F',
        'gateway_id=1',
        '--trace',
        t,
      ],
      { env },
    );
    const pr = await mpay(
      [
        'api',
        'POST',
        '/payments/processed',
        '-f',
        `hash_token=${hash}`,
        '-f',
        'phone_number=+233201234567',
        '--trace',
        t,
      ],
      { env },
    );
    const statuses = (
      JSON.parse(readFileSync(t, 'utf8')).log.entries as { response: { status: number } }[]
    ).map((e) => e.response.status);
    expect(statuses.slice(-2), su.stderr + pr.stderr).toEqual([404, 404]);
    const r = await mpay(['replay', t, '--json'], { env: cliEnv(other, tempDir()) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const calls = r.json() as { same: boolean; replayed: { status: number } | null; skipped?: string }[];
    expect(calls.every((c) => c.same && c.replayed && !c.skipped)).toBe(true);
    expect(calls.slice(-2).map((c) => c.replayed!.status)).toEqual([404, 404]);
    // every call reached the other sandbox, the two refused ones included
    const counts = await requestCounts(other);
    expect(counts['POST /payments/status/update']).toBe(1);
    expect(counts['POST /payments/processed']).toBe(2);
  } finally {
    await Promise.all([rec.close(), other.close()]);
  }
});

describe('a withdrawal with its one-time code', () => {
  it('is replayed with --otp: the code sent, then the withdrawal confirmed (exit 0)', async () => {
    const sb = await strictSandbox();
    sb.allowReads();
    sb.expect('POST /payments/withdraw/initiate');
    sb.expect('POST /payments/status/update');
    sb.expect('POST /payments/withdraw/processed', 2);
    try {
      const r = await mpay(['replay', withdrawTrace, '--otp', demoMerchant.otp, '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stderr).toBe(0);
      const calls = r.json();
      expect(calls.every((c: { same: boolean }) => c.same)).toBe(true);
      expect(calls.filter((c: { path: string }) => c.path === '/payments/withdraw/processed')).toHaveLength(
        2,
      );
      sb.verify();
      expect((await transactions(sb.inner))[0]!.status).toBe('pending');
      expect(r.stdout + r.stderr).not.toContain(demoMerchant.otp);
    } finally {
      await sb.close();
    }
  });

  /** The withdraw trace with its last confirmation (the one with the code) changed by `edit`. */
  const editedConfirmation = (
    name: string,
    edit: (e: {
      request: { postData?: { text?: string } };
      response: { content: { text?: string } };
    }) => void,
  ) => {
    const har = JSON.parse(readFileSync(withdrawTrace, 'utf8'));
    const processed = har.log.entries.filter((e: { request: { url: string } }) =>
      e.request.url.endsWith('/payments/withdraw/processed'),
    );
    edit(processed.at(-1));
    const file = join(tempDir(), name);
    writeFileSync(file, JSON.stringify(har));
    return file;
  };
  const json = (text: string | undefined) => JSON.parse(text ?? '{}') as Record<string, unknown>;
  type Replayed = { path: string; same: boolean; differences: { what: string }[] };
  const lastConfirmation = (calls: Replayed[]) =>
    calls.filter((c) => c.path === '/payments/withdraw/processed').at(-1)!;

  it('a confirmation that only sent the code again where the trace shows it processed: answered otherwise (exit 13)', async () => {
    // a trace whose confirmation lost its code (a browser's, or a hand edit): the API answers 200, the
    // code sent (data []), where the recording saw the withdrawal processed
    const file = editedConfirmation('no-code.har', (e) => {
      const body = json(e.request.postData!.text);
      delete body.otp;
      e.request.postData!.text = JSON.stringify(body);
    });
    const sb = await sandbox();
    try {
      const r = await mpay(['replay', file, '--otp', demoMerchant.otp, '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stderr).toBe(replayDiffersExitCode);
      expect(lastConfirmation(r.json()).differences).toEqual(
        expect.arrayContaining([{ what: 'answer', recorded: 'processed', replayed: 'code sent' }]),
      );
      // the second server: the withdrawal was never processed there
      expect((await transactions(sb))[0]!.status).toBe('initiated');
    } finally {
      await sb.close();
    }
  });

  it("a confirmation answered with another transaction status than the recording's: answered otherwise (exit 13)", async () => {
    // the recording server answered the processed withdrawal as settled at once; this one leaves it pending
    const file = editedConfirmation('settled.har', (e) => {
      const body = json(e.response.content.text);
      (body.data as Record<string, unknown>).status = 'success';
      e.response.content.text = JSON.stringify(body);
    });
    const sb = await sandbox();
    try {
      const r = await mpay(['replay', file, '--otp', demoMerchant.otp, '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stderr).toBe(replayDiffersExitCode);
      const last = lastConfirmation(r.json());
      expect(last.differences).toEqual([
        { what: 'transaction status', recorded: 'success', replayed: 'pending' },
      ]);
      expect((await transactions(sb))[0]!.status).toBe('pending');
    } finally {
      await sb.close();
    }
  });

  // Each way a success can answer otherwise than recorded, alone (the HTTP status, the flag, which of its
  // endpoint's answers, the transaction's status): the withdrawal's confirmations after it are not sent.
  type Entry = {
    request: { url: string; postData?: { text?: string } };
    response: { status: number; content: { text?: string } };
  };
  const editedAnswer = (name: string, path: string, edit: (e: Entry) => void) => {
    const har = JSON.parse(readFileSync(withdrawTrace, 'utf8'));
    edit((har.log.entries as Entry[]).find((e) => e.request.url.endsWith(path))!);
    const file = join(tempDir(), name);
    writeFileSync(file, JSON.stringify(har));
    return file;
  };
  const answerOf = (e: Entry, f: (body: Record<string, unknown>) => void) => {
    const body = json(e.response.content.text);
    f(body);
    e.response.content.text = JSON.stringify(body);
  };
  const outcomes: [string, string, (e: Entry) => void, Record<string, unknown>][] = [
    [
      'another HTTP status',
      '/payments/status/update',
      (e) => void (e.response.status = 201),
      { what: 'status', recorded: 201, replayed: 200 },
    ],
    [
      'another flag',
      '/payments/status/update',
      (e) => answerOf(e, (b) => void (b.success = false)),
      { what: 'flag', recorded: false, replayed: true },
    ],
    [
      "another transaction's status",
      '/payments/status/update',
      (e) => answerOf(e, (b) => void ((b.data as Record<string, unknown>).status = 'pending')),
      { what: 'transaction status', recorded: 'pending', replayed: 'initiated' },
    ],
    [
      "another of the endpoint's answers",
      '/payments/withdraw/processed',
      // the code sent (data: []) recorded as the withdrawal processed, with no status of its own
      (e) => answerOf(e, (b) => void (b.data = {})),
      { what: 'answer', recorded: 'processed', replayed: 'code sent' },
    ],
    [
      'a transaction status where none was recorded',
      '/payments/status/update',
      (e) => answerOf(e, (b) => void delete (b.data as Record<string, unknown>).status),
      { what: 'transaction status', recorded: null, replayed: 'initiated' },
    ],
    [
      "one of the endpoint's answers where none was recorded",
      '/payments/withdraw/processed',
      // an answer without data is no success: none of the endpoint's answers
      (e) => answerOf(e, (b) => void delete b.data),
      { what: 'answer', recorded: null, replayed: 'code sent' },
    ],
  ];
  it.each(outcomes)(
    'a success answered otherwise than recorded (%s) stops the money calls after it',
    async (_, path, edit, difference) => {
      const file = editedAnswer('outcome.har', path, edit);
      const sb = await strictSandbox();
      sb.allowReads();
      sb.expect('POST /payments/withdraw/initiate');
      sb.expect('POST /payments/status/update');
      if (path === '/payments/withdraw/processed') sb.expect('POST /payments/withdraw/processed');
      try {
        const r = await mpay(['replay', file, '--otp', demoMerchant.otp, '--json'], {
          env: cliEnv(sb, tempDir()),
        });
        expect(r.code, r.stderr).toBe(replayDiffersExitCode);
        const calls = r.json() as (Replayed & { index: number; skipped?: string })[];
        const at = calls.find((c) => c.path === path)!;
        expect(at.differences.filter((d) => d.what !== 'field')).toEqual([difference]);
        const last = lastConfirmation(calls) as Replayed & { skipped?: string };
        expect(last.skipped).toMatch(
          new RegExp(`^not sent: call ${at.index} \\(POST ${path}\\) answered otherwise than recorded: `),
        );
        expect(r.stderr).toContain(`mpay: stopped: call ${at.index} (POST ${path})`);
        // no confirmation after it reached the server: the withdrawal was not processed there
        sb.verify();
        expect((await transactions(sb.inner))[0]!.status).toBe('initiated');
      } finally {
        await sb.close();
      }
    },
  );

  it('the same trace with a wrong --otp: refused by the server, answered otherwise (exit 13)', async () => {
    const sb = await sandbox();
    try {
      const r = await mpay(['replay', withdrawTrace, '--otp', '000000', '--json'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stderr).toBe(replayDiffersExitCode);
      // refused: none of the endpoint's answers, where the recording had the withdrawal processed
      expect(lastConfirmation(r.json()).differences).toContainEqual({
        what: 'answer',
        recorded: 'processed',
        replayed: null,
      });
      expect((await transactions(sb))[0]!.status).toBe('initiated');
    } finally {
      await sb.close();
    }
  });

  it('without --otp and no terminal: refused before anything is sent (exit 2)', async () => {
    const sb = await strictSandbox();
    try {
      const r = await mpay(['replay', withdrawTrace, '--json'], { env: cliEnv(sb, tempDir()) });
      expect(r.code).toBe(2);
      expect(r.json().error).toMatchObject({
        message:
          'Nothing was sent: the trace confirms a withdrawal with a one-time code, which traces never keep',
        hint: 'Pass --otp CODE (the code sent to the customer e-mail; the sandbox: 123456), or run it on a terminal to be asked',
      });
      sb.verify();
      // a trace whose withdrawal only had the code sent (no confirmation with it) needs none
      const har = JSON.parse(readFileSync(withdrawTrace, 'utf8'));
      const withCode = (e: { request: { postData?: { text?: string } } }) =>
        Boolean(e.request.postData?.text?.includes('"otp"'));
      har.log.entries = har.log.entries.filter((e: Entry) => !withCode(e));
      const noCode = join(tempDir(), 'code-sent.har');
      writeFileSync(noCode, JSON.stringify(har));
      sb.allowReads();
      sb.expect('POST /payments/withdraw/initiate');
      sb.expect('POST /payments/status/update');
      sb.expect('POST /payments/withdraw/processed');
      const sent = await mpay(['replay', noCode, '--json'], { env: cliEnv(sb, tempDir()) });
      expect(sent.code, sent.stderr).toBe(0);
      sb.verify();
    } finally {
      await sb.close();
    }
  });
});

it('a trace of two transactions, a deposit then a withdrawal: each later call carries its own new hash token', async () => {
  const both = mergedHar('both.har', [depositTrace, withdrawTrace]);
  const sb = await strictSandbox();
  sb.allowReads();
  for (const route of depositMoney) sb.expect(route);
  sb.expect('POST /payments/withdraw/initiate');
  sb.expect('POST /payments/status/update');
  sb.expect('POST /payments/withdraw/processed', 2);
  try {
    const r = await mpay(['replay', both, '--otp', demoMerchant.otp, '--json'], {
      env: cliEnv(sb, tempDir()),
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const calls = r.json() as { path: string; same: boolean; skipped?: string }[];
    expect(calls.filter((c) => !c.same || c.skipped)).toEqual([]);
    sb.verify();
    // both new transactions went the whole way: the deposit's wallet set, the withdrawal's code checked
    const txs = await transactions(sb.inner);
    expect(txs).toHaveLength(2);
    expect(txs.map((t) => t.status)).toEqual(['pending', 'pending']);
    expect(txs.filter((t) => t.wallet_address)).toHaveLength(1);
  } finally {
    await sb.close();
  }
});

it('a support bundle holding the trace is replayed like the trace', async () => {
  const cfg = tempDir();
  const out = join(tempDir(), 'ticket.tar.gz');
  const made = await mpay(['support', 'bundle', '--trace-file', depositTrace, '--out', out, '--json'], {
    env: cliEnv(a, cfg),
  });
  expect(made.code, made.stderr).toBe(0);
  const sb = await strictSandbox();
  sb.allowReads();
  for (const route of depositMoney) sb.expect(route);
  try {
    const r = await mpay(['replay', out, '--json'], { env: cliEnv(sb, tempDir()) });
    expect(r.code, r.stderr).toBe(0);
    const calls = r.json();
    expect(calls).toHaveLength(6);
    expect(calls.every((c: { same: boolean }) => c.same)).toBe(true);
    // the bundle masked the customer's e-mail and phone: stand-ins went out, and the payment went through
    sb.verify();
    const txs = await transactions(sb.inner);
    expect(txs).toHaveLength(1);
    expect(txs[0]!.reference).not.toBe(recordedReference);
  } finally {
    await sb.close();
  }
});

describe('live', () => {
  it('is refused without --yes and without a terminal: nothing at all is sent (exit 16)', async () => {
    const sb = await strictSandbox();
    try {
      const env = cliEnv(sb, tempDir(), { MPAY_ENV: 'live' });
      const r = await mpay(['replay', depositTrace, '--json'], { env });
      expect(r.code).toBe(16);
      expect(r.json().error.message).toMatch(
        /on the live server http:\/\/127\.0\.0\.1:\d+ \(the run is in the live environment\): pass --yes/,
      );
      sb.verify();
      sb.allowReads();
      for (const route of depositMoney) sb.expect(route);
      const ok = await mpay(['replay', depositTrace, '--yes', '--json'], { env });
      expect(ok.code, ok.stderr).toBe(0);
      sb.verify();
    } finally {
      await sb.close();
    }
  });
});

describe('a HAR from a browser', () => {
  it('replays only the API calls, and no secret the HAR held reaches the output', async () => {
    const har = JSON.parse(readFileSync(depositTrace, 'utf8'));
    const secrets = ['mk_live_9f8e7d6c5b4a', 'eyJhbGciOiJIUzI1NiJ9.live-token-abcdef', 'ak_live_1234567890'];
    const entries = har.log.entries;
    // What a browser's devtools keep: the token generate with the key in the clear, an Authorization header
    // in the clear, and the token in the answer.
    entries[0].request.postData.text = JSON.stringify({ merchant_key: secrets[0] });
    entries[0].response.content.text = JSON.stringify({
      success: true,
      message: 'Token generated successfully.',
      data: { token: secrets[1] },
    });
    entries[2].request.headers.push({ name: 'Authorization', value: `Bearer ${secrets[1]}` });
    entries[2].request.postData.text = entries[2].request.postData.text.replace('"***"', `"${secrets[0]}"`);
    const other = (url: string) => ({
      ...entries[1],
      request: { ...entries[1].request, method: 'GET', url, headers: [], postData: undefined },
      response: {
        ...entries[1].response,
        status: 200,
        content: { size: 2, mimeType: 'text/html', text: 'ok' },
      },
    });
    har.log.entries = [
      other('https://shop.example/checkout'),
      entries[0],
      other(`https://analytics.example/collect?api_key=${secrets[2]}`),
      entries[1],
      other('https://cdn.example/app.js'),
      ...entries.slice(2),
      other('https://shop.example/restapi/v2/unknown'),
    ];
    const file = join(tempDir(), 'browser.har');
    writeFileSync(file, JSON.stringify(har));
    const sb = await strictSandbox();
    sb.allowReads();
    // the run and its --debug run each send the deposit's calls; the dry run none
    for (const route of depositMoney) sb.expect(route, 2);
    try {
      const env = cliEnv(sb, tempDir());
      const r = await mpay(['replay', file, '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toHaveLength(6);
      expect(r.stderr).toContain('4 entries of');
      expect(total(await requestCounts(sb.inner))).toBe(6);
      const text = await mpay(['replay', file, '--debug'], { env });
      const dry = await mpay(['replay', file, '--dry-run', '--json'], { env });
      for (const out of [r.stdout, r.stderr, text.stdout, text.stderr, dry.stdout, dry.stderr])
        for (const s of secrets) expect(out).not.toContain(s);
      sb.verify();
    } finally {
      await sb.close();
    }
  });

  it('a file that holds no call of the API is a usage error, and a file that is not a HAR too', async () => {
    const env = cliEnv(b, tempDir());
    const none = join(tempDir(), 'none.har');
    writeFileSync(none, JSON.stringify({ log: { version: '1.2', entries: [] } }));
    const r = await mpay(['replay', none, '--json'], { env });
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/no call of the API/);
    const junk = join(tempDir(), 'junk.har');
    writeFileSync(junk, 'not json');
    expect((await mpay(['replay', junk], { env })).code).toBe(2);
  });

  it('a call of a transaction the trace did not initiate is not sent', async () => {
    const har = JSON.parse(readFileSync(depositTrace, 'utf8'));
    // the trace cut after the initiate: its later steps carry a hash token that no initiate here made
    har.log.entries = har.log.entries.filter(
      (e: { request: { url: string } }) => !e.request.url.endsWith('/payments/initiate'),
    );
    const file = join(tempDir(), 'cut.har');
    writeFileSync(file, JSON.stringify(har));
    const sb = await strictSandbox();
    sb.allowReads();
    try {
      const r = await mpay(['replay', file, '--json'], { env: cliEnv(sb, tempDir()) });
      expect(r.code).toBe(13);
      const skipped = r.json().filter((c: { skipped?: string }) => c.skipped);
      expect(skipped).toHaveLength(3);
      expect(skipped[0].skipped).toMatch(/no initiate of this trace/);
      // no money call at all went out
      sb.verify();
    } finally {
      await sb.close();
    }
  });
});

describe('mpay sandbox --catalogue', () => {
  it('refuses a trace without a merchant currencies answer', async () => {
    const har = JSON.parse(readFileSync(withdrawTrace, 'utf8'));
    har.log.entries = har.log.entries.filter(
      (e: { request: { url: string } }) => !e.request.url.endsWith('/merchant/currencies'),
    );
    const file = join(tempDir(), 'no-currencies.har');
    writeFileSync(file, JSON.stringify(har));
    const r = await mpay(['sandbox', '--port', '0', '--catalogue', file, '--json'], {});
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/holds no merchant currencies answer/);
  });
});
