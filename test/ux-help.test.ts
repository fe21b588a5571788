import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

describe.concurrent('messages that lead somewhere', () => {
  it('without a terminal, every missing flag is named at once', async () => {
    const r = await mpay(['deposit', '--currency', 'GHS', '--json'], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(2);
    expect(r.json().error.message).toBe('Missing --amount, --first-name, --phone, --email, --gateway');
    expect(Object.keys(r.json().error.fields)).toEqual([
      'amount',
      'customer_first_name',
      'customer_phone',
      'customer_email',
      'gateway_id',
    ]);
    const initiate = await mpay(['deposit', 'initiate', '--json'], { env: cliEnv(sb, tempDir()) });
    expect(initiate.json().error.message).toBe(
      'Missing --currency, --amount, --first-name, --phone, --email',
    );
  });

  it('doctor prints its report on stdout, and no hint of it says "run mpay doctor"', async () => {
    const ok = await mpay(['doctor'], { env: cliEnv(sb, tempDir()) });
    expect(ok.code).toBe(0);
    // a check longer than the width continues on lines indented by two
    expect(ok.stdout).toMatch(
      /^✓ base URL: .*\n(?: {2}\S.*\n)*✓ proxy and CA: .*\n(?: {2}\S.*\n)*✓ API reachable/,
    );
    expect(ok.stdout).toMatch(/All checks passed\.\n$/);
    const wrongKey = await mpay(['doctor'], { env: cliEnv(sb, tempDir(), { MPAY_API_KEY: 'ak_wrong' }) });
    expect(wrongKey.code).toBe(3);
    expect(wrongKey.stdout).toMatch(
      /✗ API key: .*\n {4}hint: The Site ID and API key are under the services settings/,
    );
    expect(wrongKey.stdout + wrongKey.stderr).not.toMatch(/run `?mpay doctor/);
  });
});

it('a mistyped flag or subcommand gets a "did you mean", as a mistyped command does', async () => {
  const { mpay } = await import('./in-process.js');
  // The parse error is reported as a usage error, and oclif does not add its "did not parse" warning.
  const warnings: string[] = [];
  const onWarning = (w: Error & { code?: string }) => warnings.push(w.code ?? w.name);
  process.on('warning', onWarning);
  const flag = await mpay(['deposit', '--amont', '5', '--json'], {});
  expect(flag.code).toBe(2);
  expect(flag.json().error.hint).toBe('Did you mean --amount? See `mpay deposit --help`');
  const sub = await mpay(['withdraw', 'batch', 'confrm', 'x.csv', '--json'], {});
  expect(sub.code).toBe(2);
  expect(sub.json().error.hint).toBe(
    'Did you mean `mpay withdraw batch confirm`? See `mpay withdraw batch --help`',
  );
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  expect(warnings).not.toContain('UnparsedCommand');
});

it("a missing required flag is said as mpay says a missing value, not in oclif's words", async () => {
  const { mpay } = await import('./in-process.js');
  const json = await mpay(['proxy', '--json'], {});
  expect(json.code).toBe(2);
  expect(json.json().error).toMatchObject({ kind: 'usage', message: 'Missing --upstream' });
  const text = await mpay(['proxy'], {});
  expect(text.code).toBe(2);
  expect(text.stderr).toBe('mpay: Missing --upstream\nhint: See `mpay proxy --help`\n');
});
