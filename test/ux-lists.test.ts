// The list commands as a newcomer and a script meet them: unknown columns, filter keys and statuses are
// usage errors that list the valid ones; --help lists the columns; tables fit the terminal (cut with an
// ellipsis, or one block per row when too narrow) but never in CSV or JSON, and an identifier (a
// reference, a hash token, a URL) is never cut; CSV is plain ASCII; history takes durations and ISO times,
// and `history show` a prefix of the hash token.
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  sb = await sandbox();
  env = cliEnv(sb, tempDir());
  for (const ref of ['ux-1', 'ux-2'])
    expect((await mpay(['deposit', ...customerArgs({ reference: ref }), '--json'], { env })).code).toBe(0);
});
afterAll(() => sb.close());

describe.concurrent('columns, filters and statuses', () => {
  it('an unknown column, filter key or status is a usage error that lists the valid ones', async () => {
    const col = await mpay(['balances', '--columns', 'code,foo', '--json'], { env });
    expect(col.code).toBe(2);
    expect(col.json().error.message).toBe('Unknown column: foo');
    expect(col.json().error.hint).toMatch(/^Known columns: code, country, total_balance, /);
    const filter = await mpay(['countries', '--filter', 'foo=bar', '--json'], { env });
    expect(filter.code).toBe(2);
    expect(filter.json().error.message).toBe('Unknown filter key: foo');
    expect(filter.json().error.hint).toBe('Known filter keys: code, name, dial_code, id');
    const status = await mpay(['history', '--status', 'bogus', '--json'], { env });
    expect(status.code).toBe(2);
    expect(status.json().error.message).toMatch(/bogus.*initiated, pending, success, failed, cancelled/);
  });

  it('a filter on a nested field of the JSON works, and --help names the columns', async () => {
    const gh = await mpay(['balances', '--filter', 'country.code=GH', '--json'], { env });
    expect(gh.json().map((c: { code: string }) => c.code)).toEqual(['GHS']);
    const help = await import('../src/commands/balances/command.js');
    expect(help.default.description).toMatch(
      /Columns \(for --columns and --filter\): code, country, .*; with --wide also deposite, withdraw, service, collection, disbursement\./,
    );
  });
});

describe.concurrent('tables that fit', () => {
  it('at 80 columns on a terminal every line fits, the gateway lists folded with every id whole; a pipe gets them on one line', async () => {
    const tty = await mpay(['balances', '--wide'], { env, tty: true, width: 80 });
    expect(tty.code, tty.stderr).toBe(0);
    const lines = tty.stdout.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    const pipe = await mpay(['balances', '--wide'], { env });
    expect(pipe.stdout).not.toContain('…');
    expect(pipe.stdout).toContain('MoonPay Card On-Ramp (6), Transak Card On-Ramp (7)');
    // each gateway's id, as many times as the whole table has it (an id cut would name another gateway)
    const ids = (text: string) => [...text.matchAll(/\((\d+)\)/g)].map((m) => m[1]).sort();
    expect(ids(tty.stdout)).toEqual(ids(pipe.stdout));
    expect(tty.stdout).not.toMatch(/\(\d*…/);
  });

  it('the default columns fit 80 without cutting; too narrow a terminal shows one block per row', async () => {
    const fit = await mpay(['balances'], { env, tty: true, width: 80 });
    expect(fit.stdout).not.toContain('…');
    expect(
      Math.max(
        ...fit.stdout
          .trimEnd()
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(80);
    const narrow = await mpay(['history', '--wide'], { env, tty: true, width: 40 });
    const blocks = narrow.stdout.trim().split('\n\n');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(/^Started\s+\d{4}-/);
    expect(blocks[0]).toMatch(/\nReference\s+ux-2/);
    // every line fits but a hash token's (64 characters, never cut), alone on its line
    expect(blocks[0]).toMatch(/\nHash token\n {2}[0-9a-f]{64}\n/);
    expect(
      Math.max(
        ...narrow.stdout
          .trimEnd()
          .split('\n')
          .filter((l) => !/^ {2}[0-9a-f]{64}$/.test(l))
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(40);
  });

  it('CSV and JSON are never cut, and CSV is plain ASCII with the documented headers', async () => {
    const csv = await mpay(['balances', '--csv'], { env, tty: true, width: 40 });
    expect(csv.stdout).toMatch(/^[\x20-\x7e\n]*$/);
    expect(csv.stdout.split('\n')[0]).toBe('code,country,total_balance,deposit_limits,withdraw_limits');
    expect(csv.stdout).toContain('GHS,GH,25000,1-50000,5-20000');
    expect(csv.stdout).toContain('XAF,CM,0,100-2000000,off');
    const hist = await mpay(['history', '--columns', 'reference,hash_token', '--csv'], {
      env,
      tty: true,
      width: 40,
    });
    expect(hist.stdout).toMatch(/ux-1,[0-9a-f]{64}\n/);
  });
});

describe.concurrent('history by time and by prefix', () => {
  it('--since and --until take durations, dates and ISO times', async () => {
    const refs = async (...args: string[]) =>
      (await mpay(['history', ...args, '--json'], { env }))
        .json()
        .map((r: { reference: string }) => r.reference);
    expect(await refs('--since', '1h')).toEqual(['ux-2', 'ux-1']); // newest first
    expect(await refs('--until', '2d')).toEqual([]);
    expect(await refs('--since', '2099-01-01')).toEqual([]);
    expect(await refs('--until', new Date(Date.now() + 60_000).toISOString())).toEqual(['ux-2', 'ux-1']);
    const bad = await mpay(['history', '--since', 'yesterday', '--json'], { env });
    expect(bad.code).toBe(2);
    expect(bad.json().error.hint).toMatch(/90m, 2h, 7d/);
  });

  it('history show takes the start of a hash token as shown, when it is unique', async () => {
    const all = (await mpay(['history', '--json'], { env })).json();
    const hash: string = all[0].hash_token;
    const shown = await mpay(['history', 'show', `${hash.slice(0, 12)}…`, '--json'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json().reference).toBe(all[0].reference);
    const common = [...hash].findIndex((ch, i) => all[1].hash_token[i] !== ch);
    if (common >= 4) {
      const ambiguous = await mpay(['history', 'show', hash.slice(0, common), '--json'], { env });
      expect(ambiguous.code).toBe(2);
    }
  });
});

describe.concurrent('key/value screens that fit', () => {
  const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));
  it('a deposit, whoami, history show and profiles list fit 80 and 60 columns on a terminal; a pipe gets the table whole', async () => {
    const env = cliEnv(sb, tempDir());
    const login = await mpay(
      [
        'login',
        '--env',
        'sandbox',
        '--base-url',
        sb.url,
        '--merchant-key',
        'mk_sandbox_demo',
        '--site-id',
        '1',
      ],
      { env: { ...env, MPAY_KEYRING: 'off', MPAY_API_KEY: 'ak_sandbox_demo' } },
    );
    expect(login.code, login.stderr).toBe(0);
    for (const width of [80, 60]) {
      const dep = await mpay(['deposit', ...customerArgs()], { env, tty: true, width });
      expect(dep.code, dep.stderr).toBe(0);
      const prose = dep.stdout.split('\n').filter((l) => !/[0-9a-f]{40,}/.test(l));
      expect(widest(prose.join('\n')), dep.stdout).toBeLessThanOrEqual(width);
      if (width === 80) expect(widest(dep.stdout)).toBeLessThanOrEqual(80);
      expect(dep.stdout).toMatch(/^hash_token\s+[0-9a-f]{16,}/m);
      const ref = /^reference\s+(\S+)/m.exec(dep.stdout)![1]!;
      for (const args of [['whoami'], ['history', 'show', ref], ['profiles', 'list'], ['config', 'list']]) {
        const r = await mpay(args, { env, tty: true, width });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        // a hash token (64 characters) is never cut: it may be all that passes 60
        for (const line of r.stdout.split('\n'))
          if (!/[0-9a-f]{40,}/.test(line))
            expect([...line].length, `${args.join(' ')} at ${width}: ${line}`).toBeLessThanOrEqual(width);
      }
    }
    const piped = await mpay(['deposit', ...customerArgs()], { env });
    expect(piped.stdout).toMatch(/│ hash_token\s+│ [0-9a-f]{64} │/);
  });
});

describe.concurrent('--resume takes what history show takes', () => {
  it('the start of a hash token as history shows it (with its ellipsis, in any case)', async () => {
    const env = cliEnv(sb, tempDir());
    const started = await mpay(['deposit', 'initiate', ...customerArgs({ gateway: '' }), '--json'], { env });
    expect(started.code, started.stderr).toBe(0);
    const { hash_token: hash, reference } = started.json();
    const resumed = await mpay(
      ['deposit', '--resume', `${String(hash).slice(0, 12).toUpperCase()}…`, '--gateway', '1', '--json'],
      { env },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json()).toMatchObject({ reference, hash_token: hash });
    expect(resumed.json().steps ?? resumed.json().status).toBeTruthy();
    const none = await mpay(['deposit', '--resume', 'ffffffffffff…'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Nothing in the journal for "ffffffffffff…"/);
  });
});

describe.concurrent('identifiers are never cut to fit', () => {
  // The lines wider than the width: none, but an identifier alone on its line (a hash token at 60).
  const tooWide = (text: string, width: number, ids: string[]) =>
    text
      .trimEnd()
      .split('\n')
      .filter((l) => stringWidth(l) > width && !ids.includes(l.trim()));
  // A table cell cut below the minimum: the "Refere…", "mpay-w…" a 60-column history showed.
  const cutShort = /│ [^│]{0,8}… │/;

  let env: Record<string, string | undefined>;
  let records: Array<{ reference: string; hash_token: string; place: { server: string } }>;
  beforeAll(async () => {
    env = cliEnv(sb, tempDir());
    // one reference mpay makes (22 characters) and two longer ones
    const made: Array<Record<string, string>> = [{}, { reference: 'ux-long-reference-to-copy-0001' }];
    for (const over of made) {
      const dep = await mpay(['deposit', ...customerArgs(over), '--json'], { env });
      expect(dep.code, dep.stderr).toBe(0);
    }
    const wd = await mpay(
      ['withdraw', ...customerArgs({ reference: 'mpay-w-mwshiyq7-0c1d2e3f4a5b' }), '--otp', '000000'],
      { env },
    );
    expect(wd.code, wd.stderr).toBe(4);
    records = (await mpay(['history', '--json'], { env })).json();
    expect(records).toHaveLength(3);
  });

  it('history and history --wide at 80 and 60, on a terminal and with COLUMNS in a pipe: every reference, hash token and server whole, and each reference shown works with history show', async () => {
    const ids = records.flatMap((r) => [r.reference, r.hash_token, r.place.server]);
    for (const width of [80, 60])
      for (const args of [['history'], ['history', '--wide']])
        for (const how of [{ tty: true, width }, { env: { ...env, COLUMNS: String(width) } }]) {
          const r = await mpay(args, { env, ...how });
          const what = `${args.join(' ')} at ${width}${how.tty ? '' : ' in a pipe'}:\n${r.stdout}`;
          expect(r.code, r.stderr).toBe(0);
          expect(tooWide(r.stdout, width, ids), what).toEqual([]);
          expect(r.stdout, what).not.toMatch(cutShort);
          for (const rec of records) {
            expect(r.stdout, what).toContain(rec.reference);
            if (args.includes('--wide')) {
              expect(r.stdout, what).toContain(rec.hash_token);
              expect(r.stdout, what).toContain(rec.place.server);
            }
          }
          // what a person copies from the screen: the words that look like this journal's references
          const shown = r.stdout.match(/\b(?:mpay-[dw]-|ux-long-)[^\s│]*/g) ?? [];
          expect(shown.length, what).toBeGreaterThanOrEqual(3);
          for (const ref of new Set(shown)) {
            const show = await mpay(['history', 'show', ref, '--json'], { env });
            expect(show.code, `history show ${ref}: ${show.stderr}`).toBe(0);
            expect(show.json().reference).toBe(ref);
          }
        }
  });

  it('a table keeps its identifiers whole and cuts the rest, widest first; too narrow for that, one block per record', async () => {
    const few = await mpay(['history', '--columns', 'reference,status,created_at'], {
      env,
      tty: true,
      width: 60,
    });
    const lines = few.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^┌/);
    expect(Math.max(...lines.map((l) => stringWidth(l)))).toBeLessThanOrEqual(60);
    for (const rec of records) expect(few.stdout).toContain(`│ ${rec.reference} `);
    // the time, the widest of the others, is shortened (month, day, minute), never cut
    expect(few.stdout).toMatch(/│ \d\d-\d\d \d\d:\d\d │\n/);
    expect(few.stdout).not.toContain('…');
    expect(few.stdout).not.toMatch(cutShort);
    const blocks = await mpay(['history'], { env, tty: true, width: 60 });
    expect(blocks.stdout).not.toContain('│');
    expect(blocks.stdout.trim().split('\n\n')).toHaveLength(3);
    expect(blocks.stdout).toMatch(/^Reference {2}ux-long-reference-to-copy-0001$/m);
    // a hash token, longer than the line, on a line of its own, whole
    const wide = await mpay(['history', '--wide'], { env, tty: true, width: 60 });
    expect(wide.stdout).toContain(`Hash token\n  ${records[0]!.hash_token}\n`);
  });

  it('profiles list at 80 and 60 with a long profile name and base URL: both whole, every line fits', async () => {
    const env = cliEnv(undefined, tempDir());
    const url = 'https://payments-sandbox.acme-merchant.example.com:8443';
    const name = 'acme-ghana-payments-east';
    const login = await mpay(
      [
        'login',
        '--profile',
        name,
        '--no-verify',
        '--env',
        'sandbox',
        '--base-url',
        url,
        '--merchant-key',
        'mk_sandbox_demo',
        '--site-id',
        '1',
      ],
      { env: { ...env, MPAY_KEYRING: 'off' } },
    );
    expect(login.code, login.stderr).toBe(0);
    for (const width of [80, 60]) {
      const r = await mpay(['profiles', 'list'], { env, tty: true, width });
      expect(r.code, r.stderr).toBe(0);
      expect(tooWide(r.stdout, width, [url]), r.stdout).toEqual([]);
      expect(r.stdout).toContain(url);
      // the only profile is the current one, marked in its own cell
      expect(r.stdout).toMatch(new RegExp(`^Profile +${name} \\(current\\)$`, 'm'));
      expect(r.stdout).not.toContain('…emo…');
    }
  });
});

it('history at 80 columns with the references mpay makes: a table that leaves Last step out, and says so; at 60 Started too', async () => {
  const env = cliEnv(sb, tempDir());
  for (const amount of ['11', '12']) {
    const dep = await mpay(['deposit', ...customerArgs({ amount }), '--json'], { env });
    expect(dep.code, dep.stderr).toBe(0);
  }
  const refs = (await mpay(['history', '--json'], { env }))
    .json()
    .map((r: { reference: string }) => r.reference);
  const at80 = await mpay(['history'], { env, tty: true, width: 80 });
  const lines = at80.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^┌/);
  expect(Math.max(...lines.map((l) => stringWidth(l))), at80.stdout).toBeLessThanOrEqual(80);
  expect(lines.slice(0, -1).join('\n')).not.toMatch(/Last step|…/);
  for (const ref of refs) expect(at80.stdout).toContain(ref);
  expect(lines.at(-1)).toBe('(left out to fit: Last step; --columns or --wide shows it)');
  // a wide terminal shows it, and no line about it
  const at120 = await mpay(['history'], { env, tty: true, width: 120 });
  expect(at120.stdout).toMatch(/Last step/);
  expect(at120.stdout).not.toMatch(/left out/);
  // at 60 not even that fits whole: Started is left out too (shortened, it did not fit), never cut
  const at60 = await mpay(['history'], { env, tty: true, width: 60 });
  const narrow = at60.stdout.trimEnd().split('\n');
  expect(Math.max(...narrow.map((l) => stringWidth(l))), at60.stdout).toBeLessThanOrEqual(60);
  for (const ref of refs) expect(narrow.filter((l) => l.includes(ref))).toHaveLength(1);
  expect(at60.stdout).not.toContain('…');
  // the line that says so folded to the width too
  expect(at60.stdout.replace(/\n\s+/g, ' ')).toContain(
    '(left out to fit: Started, Last step; --columns or --wide shows them)',
  );
});
