// Errors that say what to change: a profile that is not there, an unwritable --trace or --out, an unknown
// country or currency, a wrong code in `withdraw batch confirm`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, file, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay, twoProfiles } from './in-process.js';

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

describe('4. errors say what to change', together, () => {
  it('`mpay balances --profile nosuch` names the profiles there are, and the nearest', async () => {
    const env = await twoProfiles(a, b);
    const r = await mpay(['balances', '--profile', 'nosuch'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('No profile named "nosuch"; the profiles here: "a", "b"');
    expect(r.stderr).toMatch(/`mpay login --profile nosuch` makes a new one/);
    expect(r.stderr).not.toMatch(/No merchant key/);
    const near = await mpay(['balances', '--json'], { env: { ...env, MPAY_PROFILE: 'bb' } });
    expect(near.code).toBe(2);
    expect(near.json().error.hint).toMatch(/^Did you mean `--profile b`\?/);
    // a script's own name for credentials it brings in the environment is not a mistake
    const script = await mpay(['balances', '--profile', 'ci', '--json'], {
      env: { ...cliEnv(a, env.MPAY_CONFIG_DIR!), MPAY_KEYRING: 'off' },
    });
    expect(script.code, script.stderr).toBe(0);
  });

  it('an unwritable --trace or --out is a usage error before anything is sent', async () => {
    const c = await sandbox();
    try {
      const env = cliEnv(c, tempDir());
      const before = await requestCounts(c);
      const trace = await mpay(['countries', '--trace', '/nonexistent/dir/x.har', '--json'], { env });
      expect(trace.code).toBe(2);
      expect(trace.json().error.message).toBe(
        'Cannot write the trace to /nonexistent/dir/x.har: there is no folder /nonexistent/dir',
      );
      const viaEnv = await mpay(['countries'], { env: { ...env, MPAY_TRACE: '/nonexistent/dir/y.har' } });
      expect(viaEnv.code).toBe(2);
      const rows = file(
        'rows.csv',
        'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,10,Ama,+233201234567,a@b.c,1\n',
      );
      const out = await mpay(['withdraw', 'batch', rows, '--out', '/nonexistent/r.csv', '--yes'], { env });
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/Cannot write the results to \/nonexistent\/r\.csv: there is no folder/);
      expect(await requestCounts(c)).toEqual(before);
    } finally {
      await c.close();
    }
  });

  it('an unknown country or currency is named unknown, with the nearest known one', async () => {
    const env = cliEnv(a, tempDir());
    const country = await mpay(['deposit', ...customerArgs({ country: 'XX' }), '--no-input', '--json'], {
      env,
    });
    expect(country.code).toBe(2);
    expect(country.json().error.message).toBe(
      "Unknown country XX: none of the merchant's currencies is in it; GHS is offered in GH",
    );
    expect(country.json().error.hint).toMatch(/^Did you mean --country GH\?/);
    const currency = await mpay(['deposit', ...customerArgs({ currency: 'GHC' }), '--no-input', '--json'], {
      env,
    });
    expect(currency.code).toBe(2);
    expect(currency.json().error.message).toMatch(/^Unknown currency GHC: .*the nearest: GHS/);
    expect(currency.json().error.hint).toMatch(/^Did you mean --currency GHS\?/);
    expect(currency.json().error.hint).not.toMatch(/--force/);
    // a batch's rows say the same
    const rows = file(
      'rows.csv',
      'currency,country,amount,first_name,phone,email,gateway\nGHS,XX,10,Ama,+233201234567,a@b.c,1\nGHC,,10,Ama,+233201234567,a@b.c,1\n',
    );
    const batch = await mpay(['deposit', 'batch', rows, '--dry-run'], { env });
    expect(batch.code).toBe(2);
    expect(batch.stdout + batch.stderr).toMatch(/unknown country XX/);
    expect(batch.stdout + batch.stderr).toMatch(/unknown currency GHC/);
  });

  it('a wrong code in `withdraw batch confirm` names the row and the file to mend; mended, it goes', async () => {
    const env = cliEnv(a, tempDir());
    const rows = file(
      'w.csv',
      'reference,currency,amount,first_name,phone,email,gateway\n' +
        `w33-${process.pid}-a,GHS,10,Ama,+233201234567,a@b.c,1\nw33-${process.pid}-b,GHS,10,Ama,+233201234567,a@b.c,1\n`,
    );
    const started = await mpay(['withdraw', 'batch', rows, '--yes'], { env });
    expect(started.code, started.stderr).toBe(0);
    const codes = file(
      'codes.csv',
      `reference,otp\nw33-${process.pid}-a,123456\nw33-${process.pid}-b,654321\n`,
    );
    const wrong = await mpay(['withdraw', 'batch', 'confirm', codes, '--yes'], { env });
    expect(wrong.code).toBe(10);
    expect(wrong.stderr).toContain(
      `the code of row 2 (w33-${process.pid}-b) was refused: put the right one in the otp column of row 2 of ${codes}, then run again`,
    );
    const { writeFileSync } = await import('node:fs');
    writeFileSync(codes, `reference,otp\nw33-${process.pid}-a,123456\nw33-${process.pid}-b,123456\n`);
    const mended = await mpay(['withdraw', 'batch', 'confirm', codes, '--yes'], { env });
    expect(mended.code, mended.stderr).toBe(0);
    expect(mended.stderr).toMatch(/1 done, 1 already done, 0 failed, 0 unknown/);
  });
});
