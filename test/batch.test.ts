// Batches from a file: every row checked before anything is sent (all problems at once, with row numbers);
// rows run as journaled flows a few at a time; the same file run again sends nothing twice; a row the
// API refuses makes the batch exit 10; --dry-run sends and writes nothing; NDJSON from stdin; withdrawals
// stop at their one-time code.
import { forwarder } from './forwarder.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, file, ndjson, requestCount, sandbox, tempDir, journalEvents } from './helpers.js';
import { mpay } from './in-process.js';
import { strictSandbox, type StrictSandbox } from './strict.js';

// Strict (test/strict.ts): reads go through; each test declares the money requests it means to send and
// verifies, so a request it did not expect fails it, whatever its route.
let sb: StrictSandbox;
beforeAll(async () => {
  sb = await strictSandbox();
  sb.allowReads();
});
afterAll(() => sb.close());

/** Declares `n` more of each of the money calls of a deposit (or withdrawal) row. */
function expectRows(kind: 'deposit' | 'withdraw', n: number, wallets = 0) {
  const w = kind === 'withdraw' ? 'withdraw/' : '';
  sb.expect(`POST /payments/${w}initiate`, n);
  sb.expect('POST /payments/status/update', n);
  sb.expect(`POST /payments/${w}processed`, n);
  if (wallets) sb.expect('POST /payments/crypto/wallet/address/update', wallets);
}

const requests = (route: string) => requestCount(sb.inner, route);
const initiates = () => requests('POST /payments/initiate');

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';
const good = [
  `${header}`,
  'GHS,GH,10,Ama,Mensah,+233201234567,ama@example.com,1',
  'GHS,GH,20,Kofi,,0201234568,kofi@example.com,3',
  'USD,US,50,Abena,,+15551234567,abena@example.com,5',
].join('\n');

it('runs every row, then running the same file again sends nothing twice', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const path = file('deposits.csv', good);
  const out = join(tempDir(), 'results.csv');
  const before = await initiates();
  const listsBefore = await requests('GET /merchant/currencies');
  expectRows('deposit', 3, 1);
  const r = await mpay(['deposit', 'batch', path, '--concurrency', '2', '--json', '--out', out], { env });
  expect(r.code, r.stderr).toBe(0);
  // One read of the merchant's currencies serves the checks and every row.
  expect(await requests('GET /merchant/currencies')).toBe(listsBefore + 1);
  const results = ndjson(r.stdout);
  expect(results.map((x) => x.outcome)).toEqual(['done', 'done', 'done']);
  expect(results.every((x) => x.status === 'pending' && /^TXN/.test(x.transaction_id))).toBe(true);
  expect(await initiates()).toBe(before + 3);
  expect(readFileSync(out, 'utf8').split('\n')[0]).toBe(
    'row,reference,outcome,status,hash_token,transaction_id,fee,next,error_kind,error_message',
  );
  expect(r.stderr).toMatch(/3 deposits in .*deposits\.csv, sandbox environment: 2 × GHS: 30 .*; 1 × USD: 50/);
  const again = await mpay(['deposit', 'batch', path, '--json'], { env });
  expect(again.code).toBe(0);
  expect(ndjson(again.stdout).map((r) => r.outcome)).toEqual(['skipped', 'skipped', 'skipped']);
  expect(await initiates()).toBe(before + 3);
  // --query filters each record of the NDJSON stream, a line each.
  const refs = await mpay(['deposit', 'batch', path, '--query', '[row, outcome]'], { env });
  expect(refs.code, refs.stderr).toBe(0);
  expect(refs.stdout.trim().split('\n').sort()).toEqual(['[1,"skipped"]', '[2,"skipped"]', '[3,"skipped"]']);
  sb.verify();
});

it("on a terminal the problems' table fits its width, every problem still there", async () => {
  const env = cliEnv(sb, tempDir());
  const bad = [
    `${header},reference`,
    'XXX,GH,10,Ama,,+233201234567,ama@example.com,1,r-1',
    'GHS,GH,999999,Ama,,+233201234567,ama@example.com,1,r-2',
  ].join('\n');
  const whole = await mpay(['deposit', 'batch', file('bad-tty.csv', bad)], { env });
  const widest = (s: string) => Math.max(...s.split('\n').map((l) => [...l].length));
  expect(widest(whole.stderr)).toBeGreaterThan(60);
  const r = await mpay(['deposit', 'batch', file('bad-tty.csv', bad)], { env, tty: true, width: 60 });
  expect(r.code).toBe(2);
  expect(widest(r.stderr), r.stderr).toBeLessThanOrEqual(60);
  expect(r.stderr).toMatch(/XXX/);
  expect(r.stderr).toMatch(/999999|50000/);
  sb.verify();
});

it('checks every row first: all problems at once with row numbers, exit 2, nothing sent', async () => {
  const env = cliEnv(sb, tempDir());
  const before = await initiates();
  const bad = [
    `${header},reference`,
    'XXX,GH,10,Ama,,+233201234567,ama@example.com,1,r-1',
    'GHS,GH,999999,Ama,,+233201234567,ama@example.com,1,r-2',
    'GHS,GH,10,Ama,,,ama@example.com,1,r-2',
    // a number Ghana's plan makes impossible
    'GHS,GH,10,Ama,,2012345,ama@example.com,,r-4',
  ].join('\n');
  const r = await mpay(['deposit', 'batch', file('bad.csv', bad), '--json'], { env });
  expect(r.code).toBe(2);
  // NDJSON throughout: every line is a JSON value, the error envelope last.
  const lines = r.stdout.trim().split('\n');
  expect(JSON.parse(lines.at(-1)!).error).toMatchObject({
    kind: 'usage',
    message: /7 problems in .*nothing was sent/,
  });
  expect(lines.every((l) => JSON.parse(l) !== undefined)).toBe(true);
  const problems = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{"row"'))
    .map((l) => JSON.parse(l));
  expect(problems.map((p) => `${p.row}:${p.field}`)).toEqual([
    '1:currency',
    '2:amount',
    '3:reference',
    '3:phone',
    '4:phone',
    '4:gateway',
    // the whole file: its GHS rows pass the weekly limit
    '0:amount',
  ]);
  expect(problems.at(-1).message).toMatch(
    /^GHS: 1000019 in this file and 0 in the last seven days pass the weekly limit of 200000$/,
  );
  expect(await initiates()).toBe(before);
  const unknown = await mpay(
    ['deposit', 'batch', file('cols.csv', 'currency,amount,colour\nGHS,10,red'), '--json'],
    { env },
  );
  expect(unknown.code).toBe(2);
  expect(unknown.json().error.message).toBe('Unknown column: colour');
  sb.verify();
});

it('a row the API refuses makes the batch exit 10, the others done; --dry-run sends and writes nothing', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const rows = `${header}\nGHS,GH,10,Ama,,+233201234567,ama@example.com,1\nGHS,GH,60000,Kofi,,+233201234568,kofi@example.com,1`;
  const dry = await mpay(['deposit', 'batch', file('dry.csv', rows), '--dry-run', '--force'], { env });
  expect(dry.code).toBe(0);
  expect(dry.stderr).toMatch(/Dry run: every row passed its checks; nothing was sent/);
  expect(existsSync(join(cfg, 'journal'))).toBe(false);
  sb.verify();
  // the second row's initiate is refused (over the maximum): nothing after it
  expectRows('deposit', 1);
  sb.expect('POST /payments/initiate');
  const r = await mpay(['deposit', 'batch', file('mixed.csv', rows), '--force', '--json'], { env });
  expect(r.code).toBe(10);
  const results = ndjson(r.stdout);
  expect(results.map((x) => x.outcome).sort()).toEqual(['done', 'failed']);
  expect(results.find((x) => x.outcome === 'failed').error.kind).toBe('validation');
  sb.verify();
});

it('withdrawals from NDJSON on stdin stop at their one-time code, and that counts as done', async () => {
  const env = cliEnv(sb, tempDir());
  const rowsNdjson = [
    {
      currency: 'GHS',
      country: 'GH',
      amount: 15,
      first_name: 'Ama',
      phone: '+233201234567',
      email: 'ama@example.com',
      gateway: 1,
    },
    {
      currency: 'GHS',
      country: 'GH',
      amount: 16,
      first_name: 'Kofi',
      phone: '+233201234568',
      email: 'kofi@example.com',
      gateway: 3,
    },
  ]
    .map((o) => JSON.stringify(o))
    .join('\n');
  expectRows('withdraw', 2);
  const r = await mpay(['withdraw', 'batch', '-', '--format', 'ndjson', '--json'], {
    env,
    input: rowsNdjson,
  });
  expect(r.code, r.stderr).toBe(0);
  const results = ndjson(r.stdout);
  expect(results.map((x) => `${x.outcome}:${x.next}`)).toEqual(['done:otp', 'done:otp']);
  sb.verify();
});

it('withdraw batch confirm finishes the withdrawals with their codes; a wrong code fails its row alone, and the same file again sends nothing twice', async () => {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const rows = [
    'currency,country,amount,first_name,phone,email,gateway',
    'GHS,GH,11,Yaa,+233201230001,yaa@example.org,1',
    'GHS,GH,12,Esi,+233201230002,esi@example.org,3',
    'GHS,GH,13,Akua,+233201230003,akua@example.org,1',
  ].join('\n');
  // the rows up to their codes; then the confirm's three codes, and the mended one again
  expectRows('withdraw', 3);
  sb.expect('POST /payments/withdraw/processed', 3 + 1);
  const started = await mpay(['withdraw', 'batch', file('w.csv', rows), '--json'], { env });
  expect(started.code, started.stderr).toBe(0);
  const refs = ndjson(started.stdout)
    .sort((a, b) => a.row - b.row)
    .map((x) => x.reference as string);
  expect(refs).toHaveLength(3);
  const processedBefore = await requests('POST /payments/withdraw/processed');
  // NDJSON, the second code wrong; the codes file's own row numbers.
  const codes = (second: string) =>
    refs
      .map((reference, i) => JSON.stringify({ reference, otp: i === 1 ? second : demoMerchant.otp }))
      .join('\n');
  const path = file('codes.ndjson', codes('000000'));
  const journalBefore = journalEvents(cfg);
  const dry = await mpay(['withdraw', 'batch', 'confirm', path, '--dry-run'], { env });
  expect(dry.code, dry.stderr).toBe(0);
  expect(await requests('POST /payments/withdraw/processed')).toBe(processedBefore);
  // nothing on disk either: the journal holds what it held
  expect(journalEvents(cfg)).toEqual(journalBefore);
  const out = join(tempDir(), 'confirmed.ndjson');
  const first = await mpay(['withdraw', 'batch', 'confirm', path, '--json', '--out', out], { env });
  expect(first.code, first.stderr).toBe(10);
  const byRow = Object.fromEntries(ndjson(first.stdout).map((x) => [x.row, x]));
  expect(byRow[1]).toMatchObject({ reference: refs[0], outcome: 'done', status: 'pending' });
  expect(byRow[3]).toMatchObject({ reference: refs[2], outcome: 'done', status: 'pending' });
  expect(byRow[2]).toMatchObject({ reference: refs[1], outcome: 'failed', error: { kind: 'validation' } });
  expect(byRow[2].error.message).toMatch(/otp/i);
  expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3);
  expect(await requests('POST /payments/withdraw/processed')).toBe(processedBefore + 3);
  // The code mended: only that row is sent; the two done are skipped.
  writeFileSync(path, codes(demoMerchant.otp));
  const again = await mpay(['withdraw', 'batch', 'confirm', path, '--json'], { env });
  expect(again.code, again.stderr).toBe(0);
  expect(
    ndjson(again.stdout)
      .sort((a, b) => a.row - b.row)
      .map((x) => x.outcome),
  ).toEqual(['skipped', 'done', 'skipped']);
  expect(await requests('POST /payments/withdraw/processed')).toBe(processedBefore + 4);
  const history = await mpay(['history', 'show', refs[1]!, '--json'], { env });
  expect(JSON.parse(history.stdout).status).toBe('pending');
  sb.verify();
});

it('withdraw batch confirm checks every row against the journal first, and sends nothing when one is wrong', async () => {
  const env = cliEnv(sb, tempDir());
  expectRows('withdraw', 1);
  expectRows('deposit', 1);
  const started = await mpay(
    [
      'withdraw',
      'batch',
      file(
        'one.csv',
        'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,14,Adjoa,+233201230009,adjoa@example.org,1',
      ),
      '--json',
    ],
    { env },
  );
  expect(started.code, started.stderr).toBe(0);
  const ref = JSON.parse(started.stdout.trim()).reference as string;
  const deposit = await mpay(
    [
      'deposit',
      'batch',
      file(
        'd.csv',
        'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,14,Adwoa,+233201230010,adwoa@example.org,1',
      ),
      '--json',
    ],
    { env },
  );
  const depositRef = JSON.parse(deposit.stdout.trim()).reference as string;
  const before = await requests('POST /payments/withdraw/processed');
  const bad = [
    'reference,otp',
    `${ref},${demoMerchant.otp}`,
    `${ref},${demoMerchant.otp}`,
    'mpay-wb-nowhere-9,123456',
    `${depositRef},123456`,
    `${ref},12ab`,
    `,${demoMerchant.otp}`,
  ].join('\n');
  const r = await mpay(['withdraw', 'batch', 'confirm', file('bad.csv', bad), '--json'], { env });
  expect(r.code).toBe(2);
  const problems = r.stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{"row"'))
    .map((l) => JSON.parse(l));
  expect(problems.map((p) => `${p.row}:${p.field}`)).toEqual([
    '2:reference',
    '3:reference',
    '4:reference',
    '5:otp',
    '5:reference',
    '6:reference',
  ]);
  expect(problems[0].message).toMatch(/same as row 1/);
  expect(problems[1].message).toMatch(/not in the journal/);
  expect(problems[2].message).toMatch(/deposit, not a withdrawal/);
  expect(await requests('POST /payments/withdraw/processed')).toBe(before);
  const cols = await mpay(['withdraw', 'batch', 'confirm', file('cols.csv', 'reference,code\nx,1')], { env });
  expect(cols.code).toBe(2);
  expect(cols.stderr).toMatch(/Unknown column: code[\s\S]*Known columns: reference, otp/);
  sb.verify();
});

it('live without a terminal needs --yes for the whole batch, and sends nothing without it', async () => {
  const env = cliEnv(sb, tempDir(), { MPAY_ENV: 'live' });
  const before = await initiates();
  const r = await mpay(['deposit', 'batch', file('live.csv', good)], { env });
  expect(r.code).toBe(16);
  expect(r.stderr).toMatch(
    /Nothing was sent: 3 deposits of [\d.]+ GHS \+ [\d.]+ USD in all would move real money on the live server http:\/\/127\.0\.0\.1:\d+ \(the run is in the live environment\): pass --yes/,
  );
  expect(await initiates()).toBe(before);
  sb.verify();
});

it('--out lists the rows in the file order, whatever order they end in', async () => {
  const slow = await sandbox({ latencyMs: 100 });
  try {
    const env = cliEnv(slow, tempDir());
    const h = 'currency,country,amount,first_name,phone,email,gateway,reference';
    const done = `GHS,GH,12,Ama,+233201234567,ama@example.com,1,out-order-b`;
    expect(
      (await mpay(['deposit', 'batch', file('first.csv', `${h}\n${done}`), '--json'], { env })).code,
    ).toBe(0);
    const path = file(
      'three.csv',
      [
        h,
        'GHS,GH,31,Kofi,0201234568,kofi@example.com,1,out-order-a',
        done,
        'GHS,GH,33,Esi,0201234569,esi@example.com,1,out-order-c',
      ].join('\n'),
    );
    const out = join(tempDir(), 'results.ndjson');
    const r = await mpay(['deposit', 'batch', path, '--json', '--concurrency', '3', '--out', out], { env });
    expect(r.code, r.stderr).toBe(0);
    // the row already done ends first (no request), the others after the server's 100 ms
    const ended = ndjson(r.stdout).map((r) => r.reference);
    expect(ended[0]).toBe('out-order-b');
    const listed = ndjson(readFileSync(out, 'utf8'));
    expect(listed.map((x) => [x.row, x.reference, x.outcome])).toEqual([
      [1, 'out-order-a', 'done'],
      [2, 'out-order-b', 'skipped'],
      [3, 'out-order-c', 'done'],
    ]);
  } finally {
    await slow.close();
  }
});

it('a CSV the parser cannot read (a row of another length, a quote never closed) is bad input: exit 2, its row said, nothing sent', async () => {
  const env = cliEnv(sb, tempDir());
  const before = await initiates();
  const cases: Array<[string, string, RegExp]> = [
    [
      'ragged.csv',
      `${header}\nGHS,GH`,
      /^Row 1 \(line 2 of the file\) has 2 values where the header has 8 columns$/,
    ],
    [
      'quote.csv',
      `${header}\nGHS,GH,10,"Ama,,+233201234567,ama@example.com,1\nGHS,GH,10,Kojo,,+233201234567,k@example.com,1\n`,
      /^Row 1 opens a quote that is never closed$/,
    ],
    [
      'semicolon-ragged.csv',
      `${header.replaceAll(',', ';')}\nGHS;GH;10;Ama;;+233201234567;ama@example.com;1\nGHS;GH;10`,
      /^Row 2 \(line 3 of the file\) has 3 values where the header has 8 columns$/,
    ],
  ];
  for (const [name, text, message] of cases) {
    const r = await mpay(['deposit', 'batch', file(name, text), '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json().error.kind).toBe('usage');
    expect(r.json().error.message).toMatch(message);
  }
  expect(await initiates()).toBe(before);
  sb.verify();
});

it('a batch run again counts what it will send as new, apart from the rows mpay sent before', async () => {
  const env = cliEnv(sb, tempDir());
  const rows = [1, 2, 3].map(
    (i) => `GHS,GH,${60 + i},Esi,,+23320123450${i},esi${i}@example.org,1,again-${i}`,
  );
  // two rows, then the one new row of the second run
  expectRows('deposit', 3);
  const first = await mpay(
    ['deposit', 'batch', file('again-2.csv', [`${header},reference`, ...rows.slice(0, 2)].join('\n'))],
    {
      env,
    },
  );
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).not.toMatch(/sent before/);
  const before = await initiates();
  const more = await mpay(
    ['deposit', 'batch', file('again-3.csv', [`${header},reference`, ...rows].join('\n'))],
    {
      env,
    },
  );
  expect(more.code, more.stderr).toBe(0);
  expect(more.stderr).toMatch(/^3 deposits in .*again-3\.csv/m);
  expect(more.stderr).toMatch(
    /^2 of them mpay sent before: those done are skipped, those stopped are continued; 1 new$/m,
  );
  expect(more.stderr).toMatch(/^1 done, 2 already done, 0 failed, 0 unknown$/m);
  expect(await initiates()).toBe(before + 1);
  sb.verify();
});

it('under a 10% fault rate every row ends done, failed with a reason, or unknown; each row is sent exactly once', async () => {
  // Faults on the money routes only: the check's merchant list and the token always come through, so the
  // batch always sends, and every row is accounted for. A forwarder in front keeps each initiate's body.
  const faulty = await sandbox({
    faults: ['500', 'drop', 'drop-after', 'slow'],
    rate: 0.1,
    // a slow answer outlasts --timeout; any other comes well within it on a busy machine
    slowMs: 2500,
    faultPaths: ['/payments/'],
  });
  const fwd = await forwarder(faulty.url);
  try {
    const rows = Array.from(
      { length: 40 },
      (_, i) => `GHS,GH,${10 + i},Ama,,+233201234567,ama@example.com,1`,
    );
    const path = file('faults.csv', [header, ...rows].join('\n'));
    const env = cliEnv(fwd, tempDir(), { MPAY_RETRY_BASE_MS: '1' });
    const r = await mpay(['deposit', 'batch', path, '--concurrency', '8', '--timeout', '2', '--json'], {
      env,
    });
    expect([0, 10], r.stderr).toContain(r.code);
    const results = ndjson(r.stdout);
    expect(results).toHaveLength(40);
    for (const x of results) {
      expect(['done', 'failed', 'unknown']).toContain(x.outcome);
      if (x.outcome !== 'done') expect(x.error.message.length).toBeGreaterThan(0);
      expect(x.reference).toMatch(/^mpay-db-[0-9a-f]{12}-\d+$/);
    }
    // Each row's initiate reached the server once, with that row's own amount: none twice, and none never
    // unless its outcome says mpay cannot know (unknown: its --timeout may end a request before the
    // forwarder has it whole).
    const initiates = fwd.seen
      .filter((s) => s.route === 'POST /restapi/v1/payments/initiate')
      .map((s) => JSON.parse(s.body) as { customer_transaction_id: string; amount: string | number });
    const sent = new Map<string, string[]>();
    for (const i of initiates)
      sent.set(i.customer_transaction_id, [...(sent.get(i.customer_transaction_id) ?? []), String(i.amount)]);
    expect(results.map((x) => x.row).sort((a, b) => a - b)).toEqual(rows.map((_, n) => n + 1));
    const once = (row: number) => [expect.stringMatching(new RegExp(`^${9 + row}(\\.00?)?$`))];
    for (const x of results) {
      const what = `row ${x.row}: ${JSON.stringify(x)}`;
      if (x.outcome === 'unknown' && !sent.has(x.reference)) continue;
      expect(sent.get(x.reference), what).toEqual(once(x.row));
    }
    expect([...sent.keys()].every((ref) => results.some((x) => x.reference === ref))).toBe(true);
    const byReference = new Map<string, number>();
    for (const t of faulty.state.list())
      byReference.set(t.reference, (byReference.get(t.reference) ?? 0) + 1);
    expect([...byReference.values()].every((n) => n === 1)).toBe(true);
    const counts = faulty.state.requestCounts();
    expect(counts['POST /payments/processed'] ?? 0).toBeLessThanOrEqual(faulty.state.list().length);
    expect(
      results.filter((x) => x.outcome === 'done').length,
      JSON.stringify(results.slice(0, 5)),
    ).toBeGreaterThan(0);
  } finally {
    await fwd.close();
    await faulty.close();
  }
});
