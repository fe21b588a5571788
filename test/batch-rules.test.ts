// The rules a batch keeps across runs, in this process against a real sandbox: the weekly limit and its
// own rows, a reference already journaled, an unreadable file or journal, a semicolon CSV, a file edited
// after its run, and one read of the merchant's currencies a confirm.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import {
  cliEnv,
  customerArgs,
  file,
  ndjson,
  noStack,
  requestCount,
  sandbox,
  tempDir,
  journalText,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox({ latencyMs: 10 });
});
afterAll(() => sb.close());

// The tests run at once. One that counts what reached the API, or the merchant's weekly total, has a
// sandbox of its own, so that no other test's requests are in its count; it ends with the test.
async function ownSandbox(t: TestContext): Promise<typeof sb> {
  const own = await sandbox({ latencyMs: 10 });
  t.onTestFinished(() => own.close());
  return own;
}

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';
const rows = (n: number, tag: string, amount = 10) =>
  Array.from(
    { length: n },
    (_, i) => `GHS,GH,${amount},${tag},,+2332013${String(i).padStart(5, '0')},t${i}@example.org,1`,
  );

it.concurrent(
  'a batch over half the weekly limit runs again (resumes) without being refused by its own rows; a refused initiate counts for nothing',
  async (t) => {
    const sb = await ownSandbox(t);
    const env = cliEnv(sb, tempDir());
    // The API refuses this one (above the currency's maximum, sent anyway): it made nothing.
    const refused = await mpay(
      ['deposit', ...customerArgs({ amount: '999999999', reference: 'big-1' }), '--force'],
      {
        env,
      },
    );
    expect(refused.code, refused.stderr).toBe(4);
    // 3 × 40,000 GHS of a 200,000 weekly limit: a second run would pass it if its own rows counted twice.
    const path = file('big.csv', [header, ...rows(3, 'Weekly', 40000)].join('\n'));
    const first = await mpay(['deposit', 'batch', path, '--json', '--force'], { env });
    expect(first.code, first.stderr).toBe(0);
    const again = await mpay(['deposit', 'batch', path, '--json', '--force'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((r) => r.outcome)).toEqual(['skipped', 'skipped', 'skipped']);
  },
);

it.concurrent(
  'a new flow with a reference the journal holds is refused before anything is sent, and the record stays as it was',
  async (t) => {
    const sb = await ownSandbox(t);
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const done = await mpay(['deposit', ...customerArgs({ reference: 'again-1' }), '--json'], { env });
    expect(done.code, done.stderr).toBe(0);
    const journal = journalText(cfg);
    const before = await requestCount(sb, 'POST /payments/initiate');
    for (const argv of [
      ['deposit', ...customerArgs({ reference: 'again-1' }), '--json'],
      ['deposit', 'initiate', ...customerArgs({ reference: 'again-1', gateway: '' }), '--json'],
    ]) {
      const r = await mpay(argv, { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.json().error.message).toMatch(
        /^The reference again-1 is already in the journal: a deposit started .* \(status pending\); nothing was sent$/,
      );
    }
    expect(await requestCount(sb, 'POST /payments/initiate')).toBe(before);
    expect(journalText(cfg)).toBe(journal);
    // A step refused later as "not initiated" leaves a processed transaction's status as it was.
    const late = await mpay(['deposit', 'process', 'again-1', '--json'], { env });
    expect(late.code).toBe(5);
    expect(late.json().error.hint ?? '').not.toMatch(/continue with/);
    const show = await mpay(['history', 'show', 'again-1', '--json'], { env });
    expect(show.json().status).toBe('pending');
  },
);

it.concurrent(
  'a batch file that cannot be read, and a journal that cannot be read, are clear errors with their exit codes',
  async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    for (const path of [join(cfg, 'nonexistent.csv'), cfg]) {
      const r = await mpay(['deposit', 'batch', path], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^mpay: Cannot read .* \((ENOENT|EISDIR)\)$/m);
      expect(noStack(r.stderr)).toBe(true);
    }
    writeFileSync(join(cfg, 'journal'), 'not a folder');
    const history = await mpay(['history'], { env });
    expect(history.code, history.stderr).toBe(9);
    expect(history.stderr).toMatch(
      /^mpay: The journal folder .* is not a folder; mpay will not read or write it$/m,
    );
    expect(existsSync(join(cfg, 'journal'))).toBe(true);
  },
);

it.concurrent('a semicolon-separated CSV (a spreadsheet in many locales) is read as such', async () => {
  const env = cliEnv(sb, tempDir());
  const path = file(
    'semi.csv',
    [
      'currency;country;amount;first_name;last_name;phone;email;gateway',
      'GHS;GH;12;Semi;;+233201239999;s@example.org;1',
    ].join('\n'),
  );
  const r = await mpay(['deposit', 'batch', path, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout.trim())).toMatchObject({ row: 1, outcome: 'done' });
});

it.concurrent(
  'a file edited after its run (a row added at the top) does not pay its rows again: they are refused, named, unless --allow-repeats',
  async () => {
    // A sandbox of its own: its count of initiates is this test's alone, whatever an earlier test's processes
    // still send (one that timed out under load went on initiating into the next test's count).
    const sb = await sandbox({ latencyMs: 10 });
    try {
      const cfg = tempDir();
      const env = cliEnv(sb, cfg);
      const base = rows(5, 'Edited');
      const first = await mpay(
        ['deposit', 'batch', file('edited.csv', [header, ...base].join('\n')), '--json'],
        {
          env,
        },
      );
      expect(first.code, first.stderr).toBe(0);
      const initiates = await requestCount(sb, 'POST /payments/initiate');
      // One new row at the top: every old row moves down one and gets another derived reference.
      const edited = file(
        'edited2.csv',
        [header, 'GHS,GH,77,Newcomer,,+233201399999,new@example.org,1', ...base].join('\n'),
      );
      const refused = await mpay(['deposit', 'batch', edited, '--json'], { env });
      expect(refused.code, refused.stderr).toBe(2);
      const problems = ndjson(refused.stdout).filter((p) => p.row !== undefined);
      expect(problems.map((p) => p.row)).toEqual([2, 3, 4, 5, 6]);
      expect(problems[0].message).toMatch(
        /^the same deposit \(customer, amount, currency\) as mpay-db-\S+-1, sent \d{4}-\d\d-\d\d; --allow-repeats sends it again$/,
      );
      expect(await requestCount(sb, 'POST /payments/initiate')).toBe(initiates);
      // the closing hint names the flag too: a table cut at a narrow terminal may hide it in the rows
      expect(JSON.parse(refused.stdout.trim().split('\n').at(-1)!).error.hint).toMatch(
        /go with --allow-repeats$/,
      );
      // Said on purpose: the repeats go out.
      const repeated = await mpay(['deposit', 'batch', edited, '--json', '--allow-repeats'], { env });
      expect(repeated.code, repeated.stderr).toBe(0);
      expect(await requestCount(sb, 'POST /payments/initiate')).toBe(initiates + 6);
    } finally {
      await sb.close();
    }
  },
);

it.concurrent('withdraw batch confirm reads the merchant currencies once, not once a row', async (t) => {
  const sb = await ownSandbox(t);
  const env = cliEnv(sb, tempDir());
  const started = await mpay(
    ['withdraw', 'batch', file('wd.csv', [header, ...rows(4, 'Confirm', 11)].join('\n')), '--json'],
    {
      env,
    },
  );
  expect(started.code, started.stderr).toBe(0);
  const refs = ndjson(started.stdout).map((r) => r.reference as string);
  const codes = file('codes.csv', ['reference,otp', ...refs.map((r) => `${r},123456`)].join('\n'));
  const before = await requestCount(sb, 'GET /merchant/currencies');
  const confirmed = await mpay(['withdraw', 'batch', 'confirm', codes, '--json'], { env });
  expect(confirmed.code, confirmed.stderr).toBe(0);
  expect(await requestCount(sb, 'GET /merchant/currencies')).toBe(before + 1);
});
