import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  file,
  ndjson,
  requestCount,
  requestCounts,
  sandbox,
  tempDir,
  journalEvents,
} from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let a: Sb;
let b: Sb;
beforeAll(async () => {
  a = await sandbox();
  b = await sandbox();
});
afterAll(async () => {
  await a.close();
  await b.close();
});

/** The requests a server received that move money or could: every POST but token generate. */
async function moneyPosts(sb: Sb): Promise<number> {
  const counts = await requestCounts(sb);
  return Object.entries(counts)
    .filter(([route]) => route.startsWith('POST /payments/'))
    .reduce((n, [, c]) => n + c, 0);
}

const rows = (tag: string) =>
  [
    'currency,country,amount,first_name,last_name,phone,email,gateway',
    `GHS,GH,11,Ama,${tag},+233201234567,ama@example.com,1`,
    `GHS,GH,12,Kofi,${tag},+233201234568,kofi@example.com,3`,
    `GHS,GH,13,Abla,${tag},+233201234569,abla@example.com,1`,
  ].join('\n');

const journalLines = (cfg: string, profile = 'default', env = 'sandbox') =>
  journalEvents(cfg, profile, env) as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('a batch belongs to the server it was sent to', () => {
  it('the same file against another server is refused, naming --new-batch; with it, a new batch there', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg);
    const path = file('rows.csv', rows('Place'));
    const first = await mpay(['deposit', 'batch', path, '--base-url', a.url, '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    const atA = await moneyPosts(a);
    // Every line of the journal says where it was sent.
    for (const e of journalLines(cfg))
      expect(e.place).toEqual({
        server: a.url,
        merchant: expect.stringMatching(/^sha256:[0-9a-f]{12}$/),
        profile: 'default',
        env: 'sandbox',
      });

    const before = await moneyPosts(b);
    const elsewhere = await mpay(['deposit', 'batch', path, '--base-url', b.url], { env });
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toContain(`sent before to ${a.url} (profile default, env sandbox)`);
    expect(elsewhere.stderr).toContain(
      `Rows of this file were sent before with --profile default --env sandbox --base-url ${a.url}`,
    );
    expect(elsewhere.stderr).toContain('pass --new-batch to run it here as a new batch');
    expect(await moneyPosts(b)).toBe(before);

    const fresh = await mpay(['deposit', 'batch', path, '--base-url', b.url, '--new-batch', '--json'], {
      env,
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(ndjson(fresh.stdout).map((r) => r.outcome)).toEqual(['done', 'done', 'done']);
    expect(await requestCount(b, 'POST /payments/initiate')).toBe(3);
    expect(await moneyPosts(a)).toBe(atA);

    // Run again on each server: every row is found where it lives, and nothing is sent anywhere.
    const againB = await mpay(['deposit', 'batch', path, '--base-url', b.url, '--new-batch', '--json'], {
      env,
    });
    const againA = await mpay(['deposit', 'batch', path, '--base-url', a.url, '--json'], { env });
    for (const r of [againA, againB]) {
      expect(r.code, r.stderr).toBe(0);
      expect(ndjson(r.stdout).map((r) => r.outcome)).toEqual(['skipped', 'skipped', 'skipped']);
    }
    expect(await moneyPosts(a)).toBe(atA);
    expect(await requestCount(b, 'POST /payments/initiate')).toBe(3);
    // Asked from a third profile, the refusal names both places, and history show the profile to ask.
    const ref = (ndjson(againA.stdout)[0] as { reference: string }).reference;
    const third = await mpay(['deposit', '--resume', ref, '--profile', 'p3', '--json'], {
      env: { ...env, MPAY_BASE_URL: b.url },
    });
    expect(third.code).toBe(2);
    expect(third.json().error.message).toMatch(
      new RegExp(
        `^${ref} belongs to ${a.url} \\(profile default.*, pending; and to ${b.url} \\(profile default.*, pending, not to `,
      ),
    );
    const show = await mpay(['history', 'show', ref, '--profile', 'p3', '--json'], { env });
    expect(show.code).toBe(2);
    expect(show.json().error.hint).toBe(
      `It is in the journal of profile default, sandbox: \`mpay history show ${ref} --profile default --env sandbox\``,
    );
    // One reference, two places: `history` lists both records.
    const history = await mpay(['history', '--json'], { env });
    const servers = (history.json() as { place: { server: string } }[]).map((r) => r.place.server);
    expect(servers.filter((s) => s === a.url)).toHaveLength(3);
    expect(servers.filter((s) => s === b.url)).toHaveLength(3);
  });

  it('the same file with another profile is refused, naming the profile whose journal has it', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg);
    const path = file('rows.csv', rows('Profiles'));
    expect(
      (await mpay(['deposit', 'batch', path, '--base-url', a.url, '--profile', 'p3'], { env })).code,
    ).toBe(0);
    const before = await moneyPosts(a);
    const r = await mpay(['deposit', 'batch', path, '--base-url', a.url], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`sent before to ${a.url} (profile p3, env sandbox)`);
    expect(r.stderr).toContain(`--profile p3 --env sandbox --base-url ${a.url}`);
    expect(await moneyPosts(a)).toBe(before);
    expect(journalLines(cfg)).toEqual([]);
  });
});

describe('a transaction is continued only where it lives', () => {
  it('resume, a single step and a confirm on another server or merchant refuse before sending anything', async () => {
    const cfg = tempDir();
    const env = cliEnv(undefined, cfg);
    const init = await mpay(
      [
        'withdraw',
        'initiate',
        ...customerArgs({ reference: 'place-w1', gateway: '' }),
        '--base-url',
        a.url,
        '--json',
      ],
      { env },
    );
    expect(init.code, init.stderr).toBe(0);
    const lines = journalLines(cfg).length;
    const atA = await moneyPosts(a);
    const atB = await moneyPosts(b);
    const refusals = [
      ['withdraw', '--resume', 'place-w1', '--gateway', '1', '--base-url', b.url, '--json'],
      ['status', 'place-w1', '--status', 'cancelled', '--base-url', b.url, '--json'],
      ['wallet', 'place-w1', '--gateway', '1', '--base-url', b.url, '--json'],
      ['withdraw', 'process', 'place-w1', '--otp', '123456', '--base-url', b.url, '--json'],
    ];
    for (const argv of refusals) {
      const r = await mpay(argv, { env });
      expect(r.code, `${argv.join(' ')}\n${r.stderr}`).toBe(2);
      const e = r.json().error;
      expect(e.kind).toBe('usage');
      expect(e.message).toMatch(
        new RegExp(
          `^place-w1 belongs to ${a.url} \\(profile default, environment sandbox, merchant key sha256:[0-9a-f]{12}\\), not to ${b.url} `,
        ),
      );
      expect(e.hint).toBe(
        `Continue it where it lives: pass --profile default --env sandbox --base-url ${a.url}`,
      );
    }
    // Another merchant on the same server: a key is part of the place too.
    const other = await mpay(['withdraw', '--resume', 'place-w1', '--base-url', a.url, '--json'], {
      env: { ...env, MPAY_MERCHANT_KEY: 'mk_someone_else' },
    });
    expect(other.code).toBe(2);
    expect(other.json().error.message).toMatch(/^place-w1 belongs to .* not to .*merchant key sha256:/);
    // The confirm of a batch checks each row's place before anything is sent.
    const codes = file('codes.csv', 'reference,otp\nplace-w1,123456\n');
    const confirm = await mpay(['withdraw', 'batch', 'confirm', codes, '--base-url', b.url], { env });
    expect(confirm.code, confirm.stderr).toBe(2);
    expect(confirm.stderr).toContain(`belongs to ${a.url} (profile default, env sandbox): confirm it there`);
    expect(await moneyPosts(a)).toBe(atA);
    expect(await moneyPosts(b)).toBe(atB);
    expect(journalLines(cfg)).toHaveLength(lines);
    // Where it lives, the same resume goes on.
    const there = await mpay(
      [
        'withdraw',
        '--resume',
        'place-w1',
        '--gateway',
        '1',
        '--otp',
        '123456',
        '--base-url',
        a.url,
        '--json',
      ],
      { env },
    );
    expect(there.code, there.stderr).toBe(0);
    expect(there.json().status).toBe('pending');
  });
});
