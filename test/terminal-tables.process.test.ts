// Tables on a real terminal 80 columns wide (tmux): `history`, a batch's problems, `profiles list`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, file, sandbox, tempDir } from './helpers.js';
import { mpay, twoProfiles } from './in-process.js';
import { onTerminal, Tmux } from './tmux.js';
import { without } from './tools.js';

let a: Awaited<ReturnType<typeof sandbox>>;
let b: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  [a, b] = await Promise.all([sandbox(), sandbox()]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

/**
 * A suite's tests at once (each in config folders, on terminals, of its own; the sandboxes shared, each
 * test with references of its own), with a deadline above their waits' for a loaded machine.
 */
const together = { concurrent: true, timeout: 120_000 };

describe.skipIf(without('tmux'))('10. 80 columns, on a real terminal', together, () => {
  it('`mpay history` keeps one line a transaction with 24-character references, each whole', async () => {
    const env = cliEnv(a, tempDir());
    const refs = [0, 1, 2].map((i) => `ref-${String(process.pid).padStart(8, '0')}-abcdefghij${i}`);
    for (const ref of refs) expect(ref).toHaveLength(24);
    for (const [i, ref] of refs.entries()) {
      const kind = i === 1 ? 'withdraw' : 'deposit';
      const r = await mpay([kind, ...customerArgs({ reference: ref, amount: '1250.50' }), '--no-input'], {
        env,
      });
      expect(r.code, r.stderr).toBe(0);
    }
    const { screen, exit } = await onTerminal('history-80', ['history'], env);
    expect(exit, screen).toBe(0);
    const lines = screen.split('\n');
    for (const line of lines) expect(line.length, screen).toBeLessThanOrEqual(80);
    // a table: a rule at the top, then one line a transaction, each with its reference whole
    expect(lines[0], screen).toMatch(/^┌/);
    for (const ref of refs)
      expect(
        lines.filter((l) => l.includes(ref)),
        screen,
      ).toHaveLength(1);
    expect(
      lines.filter((l) => l.startsWith('│')),
      screen,
    ).toHaveLength(1 + refs.length);
    expect(screen).toMatch(/\(left out to fit: Last step; --columns or --wide shows it\)/);
  });

  it("a problem on many rows is one line with the rows' numbers; the question says withdrawals", async () => {
    const env = cliEnv(a, tempDir());
    const row = 'GHS,10,Ama,+233201234567,a@b.c,1';
    const bad = 'GHS,10,Ama,+233201234567,not-an-email,1';
    const lines = Array.from({ length: 300 }, (_, i) => (i === 4 || i === 9 ? row : bad));
    const rows = file('many.csv', `currency,amount,first_name,phone,email,gateway\n${lines.join('\n')}\n`);
    const problems = await onTerminal('problems-80', ['withdraw', 'batch', rows], env);
    expect(problems.exit).toBe(2);
    const table = problems.screen.split('\n').filter((l) => l.startsWith('│'));
    // the header and one line for the 298 rows
    expect(table, problems.screen).toHaveLength(2);
    expect(table[1]).toMatch(/│ 1-4, 6-9, 11-300 │ email/);
    expect(problems.screen).toMatch(/298 problems in /);
    // four good rows, asked about on the terminal: "withdrawals"
    const four = file(
      'four.csv',
      `currency,amount,first_name,phone,email,gateway\n${[row, row, row, row].join('\n')}\n`,
    );
    const t = new Tmux('question-80');
    try {
      t.start(['withdraw', 'batch', four], env, undefined, 80);
      const asked = await t.waitFor(/Send these \d+ \w+\?/, 60_000);
      expect(asked).toMatch(/Send these 4 withdrawals\?/);
      t.keys('n', 'Enter');
      await t.waitFor(/EXIT=\d+/, 60_000);
    } finally {
      t.kill();
    }
  });

  it("`mpay profiles list` puts the current profile's mark on its row", async () => {
    const env = await twoProfiles(a, b);
    const wide = await onTerminal('profiles-120', ['profiles', 'list'], env, 120);
    expect(wide.screen.split('\n').find((l) => l.includes('│ a (current)'))).toBeDefined();
    expect(wide.screen).not.toMatch(/b \(current\)/);
    // at 80 the rows are blocks when a base URL is long: the mark stays in its block's Profile line
    const { writeFileSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const config = join(env.MPAY_CONFIG_DIR!, 'config.json');
    const json = JSON.parse(readFileSync(config, 'utf8'));
    json.profiles.b.baseUrls.stage = 'https://api.stage.payments-provider.example.com/some/long/prefix';
    json.profiles.b.env = 'stage';
    writeFileSync(config, JSON.stringify(json), { mode: 0o600 });
    const narrow = await onTerminal('profiles-80', ['profiles', 'list'], env);
    expect(narrow.exit, narrow.screen).toBe(0);
    expect(narrow.screen).toMatch(/^Profile\s+a \(current\)$/m);
    expect(narrow.screen.split('\n').filter((l) => /^\s*\*\s*$/.test(l))).toEqual([]);
  });
});

// The trial of the round above, by a new user again: what was still wrong, each as the user ran it.
describe.skipIf(without('tmux'))('the trial at 80 columns, on a real terminal', together, () => {
  it('the batch problem table never cuts a reference or a URL: its Problem column wraps', async () => {
    const env = cliEnv(a, tempDir());
    const refs = [0, 1].map((i) => `trial-${String(process.pid).padStart(8, '0')}-abcdef${i}`);
    for (const ref of refs) {
      const r = await mpay(
        ['deposit', ...customerArgs({ reference: ref, amount: '1250.50' }), '--no-input'],
        {
          env,
        },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    // row 1 reuses a reference of another payment; row 2 one sent before to another server (sandbox b)
    const there = await mpay(['deposit', ...customerArgs({ reference: `${refs[1]}-b` }), '--no-input'], {
      env: cliEnv(b, env.MPAY_CONFIG_DIR),
    });
    expect(there.code, there.stderr).toBe(0);
    const rows = file(
      'trial.csv',
      'currency,amount,first_name,phone,email,gateway,reference\n' +
        `GHS,10,Ama,+233201234567,a@b.c,1,${refs[0]}\nGHS,10,Ama,+233201234567,a@b.c,1,${refs[1]}-b\n`,
    );
    const { screen, exit } = await onTerminal('problems-wrap-80', ['deposit', 'batch', rows], env);
    expect(exit, screen).toBe(2);
    for (const line of screen.split('\n')) expect(line.length, screen).toBeLessThanOrEqual(80);
    expect(screen.split('\n')[0], screen).toMatch(/^┌/);
    // the table's lines joined again: each identifier whole on one of them, and nothing cut
    const table = screen.split('\n').filter((l) => l.startsWith('│'));
    expect(screen).not.toContain('…');
    const words = table.flatMap((l) => l.split(/[│\s(),]+/));
    expect(words).toContain(refs[0]);
    expect(words).toContain(b.url);
  });

  it('`mpay history` shows Started shortened (month, day, minute), never cut mid-value', async () => {
    const env = cliEnv(a, tempDir());
    const ref = `hist-${String(process.pid).padStart(8, '0')}-abcdefghi`;
    const r = await mpay(['withdraw', ...customerArgs({ reference: ref, amount: '1250.50' }), '--no-input'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const [{ screen, exit }, wide] = await Promise.all([
      onTerminal('history-started-80', ['history'], env),
      onTerminal('history-started-120', ['history'], env, 120),
    ]);
    expect(exit, screen).toBe(0);
    expect(screen).not.toContain('…');
    const row = screen.split('\n').find((l) => l.includes(ref));
    expect(row, screen).toMatch(/^│ \d\d-\d\d \d\d:\d\d │ withdraw │/);
    // where there is room, the whole time
    expect(wide.screen).toMatch(/│ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d │ withdraw │/);
  });
});
