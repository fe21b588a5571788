// The read-side commands against the sandbox: output forms, the error kinds of the README's table with their exit
// codes and JSON error objects, token refresh, redaction, permissions, login and profiles. The commands
// run in-process (test/in-process.ts); help, --version and the exit code of each kind go through the real
// bin/run.js.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  cliEnv,
  loginArgs,
  noStack,
  printedCommand,
  root,
  runPrinted,
  sandbox,
  tempDir,
  run as spawnRun,
} from './helpers.js';
import { mpay as run } from './in-process.js';
import { demoMerchant } from '../src/sandbox/seed.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

// The tests of a describe run side by side: each has a config folder of its own, and none changes the
// sandbox they share beyond adding its own tokens.
describe.concurrent('read commands', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('countries: a table on stdout, JSON with --json, CSV with --csv, --columns and --filter', async () => {
    const env = cliEnv(sb, tempDir());
    const table = await run(['countries'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Ghana/);
    expect(table.stdout).toMatch(/Dial code/);
    const json = await run(['countries', '--json'], { env });
    expect(json.json().map((c: { code: string }) => c.code)).toContain('KE');
    const csv = await run(['countries', '--csv', '--columns', 'code,name', '--filter', 'code=gh'], { env });
    expect(csv.stdout.trim()).toBe('code,name\nGH,Ghana');
    const bad = await run(['countries', '--filter', 'nonsense'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected key=value/);
  });

  it('currencies: the public list, and --merchant / balances with balances and gateways', async () => {
    const env = cliEnv(sb, tempDir());
    const pub = await run(['currencies', '--json'], { env });
    expect(pub.code).toBe(0);
    expect(pub.json()[0]).toHaveProperty('minimum_deposite');
    expect(pub.json()[0]).not.toHaveProperty('total_balance');
    const merchant = await run(['currencies', '--merchant', '--json', '--filter', 'code=USD'], { env });
    const [usd] = merchant.json();
    expect(usd.total_balance).toBeGreaterThan(0);
    expect(usd.getway_configuration.length).toBeGreaterThan(0);
    const balances = await run(['balances', '--columns', 'code,total_balance,collection'], { env });
    expect(balances.code).toBe(0);
    expect(balances.stdout).toMatch(/USDT \(TRC20\) \(5\)/);
  });

  it('token: masked by default, whole with --show and --json; cached in a 0600 file', async () => {
    const dir = tempDir();
    const env = cliEnv(sb, dir);
    const masked = await run(['token'], { env });
    expect(masked.code).toBe(0);
    const cached = JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'));
    const token = (Object.values(cached)[0] as { token: string }).token;
    expect(masked.stdout).not.toContain(token);
    expect(masked.stdout).toMatch(/Token \w{3}…\w{3} cached/);
    const shown = await run(['token', '--json'], { env });
    expect(shown.json().token).toMatch(/^[0-9a-f]{48}$/);
    expect((await run(['token', '--show'], { env })).stdout.trim()).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'tokens.json')).mode & 0o777).toBe(0o600);
  });

  it('a revoked token is replaced once and the request repeated', async () => {
    // a sandbox of its own: revoking every token would fail the tests running beside this one
    const own = await sandbox();
    try {
      const env = cliEnv(own, tempDir());
      expect((await run(['token'], { env })).code).toBe(0);
      await fetch(`${own.url}/_sandbox/revoke-tokens`, { method: 'POST' });
      const r = await run(['currencies', '--merchant', '--json', '--debug'], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/401 on a cached token/);
      expect(r.stderr.match(/> POST .*token\/generate/g)).toHaveLength(1);
    } finally {
      await own.close();
    }
  });

  it('--debug shows requests and responses with every secret redacted', async () => {
    const dir = tempDir();
    const env = cliEnv(sb, dir);
    const r = await run(['currencies', '--merchant', '--debug'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\/restapi\/v1\/merchant\/currencies/);
    expect(r.stderr).toMatch(/< 200/);
    expect(r.stderr).toMatch(/authorization: Bearer \*\*\*/);
    expect(r.stderr).toMatch(/"merchant_key":"\*\*\*"/);
    expect(r.stderr).toMatch(/"token":"\*\*\*"/);
    const token = (
      Object.values(JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8')))[0] as { token: string }
    ).token;
    expect(r.stderr).not.toContain(token);
    expect(r.stderr).not.toContain(demoMerchant.merchantKey);
  });

  it('--dry-run prints the request, redacted and as curl, and sends nothing', async () => {
    const env = cliEnv(sb, tempDir());
    const r = await run(['token', '--dry-run', '--json'], { env });
    expect(r.code).toBe(0);
    const out = r.json();
    expect(out.request.body.merchant_key).toBe('***');
    expect(out.curl).toMatch(
      /^curl -sS -g -w '\\n' -X POST '.*\/auth\/merchant\/token\/generate' .*--form-string 'merchant_key='"\$MPAY_MERCHANT_KEY"/,
    );
  });

  it('refuses plain http to a host that is not loopback, before sending', async () => {
    const r = await run(['countries', '--json', '--base-url', 'http://api.example.com'], {
      env: cliEnv(undefined, tempDir()),
    });
    expect(r.code).toBe(2);
    expect(r.json().error.kind).toBe('usage');
    expect(r.stderr).toMatch(/Refusing plain http/);
  });

  it('a rejected merchant key is an auth error (exit 3) with the JSON error object', async () => {
    const r = await run(['token', '--json', '--debug'], {
      env: cliEnv(sb, tempDir(), { MPAY_MERCHANT_KEY: 'mk_secret_7f3a9c' }),
    });
    expect(r.code).toBe(3);
    expect(r.json()).toEqual({
      error: {
        kind: 'auth',
        status: 422,
        message: expect.stringMatching(/Merchant key rejected/),
        fields: { merchant_key: ['The selected merchant key is invalid.'] },
        hint: expect.any(String),
      },
    });
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => !/^[<>!] /.test(l)),
    ).toHaveLength(1);
    expect(noStack(r.stderr)).toBe(true);
    // The rejected key is in neither the error nor the --debug trace.
    expect(r.stdout + r.stderr).not.toContain('mk_secret_7f3a9c');
  });

  it('credentials from the environment are never written to disk', async () => {
    const dir = tempDir();
    expect((await run(['currencies', '--merchant'], { env: cliEnv(sb, dir) })).code).toBe(0);
    // tokens.json holds the cached token; config.json is written only by commands that change settings.
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    const files = readFileSync(join(dir, 'tokens.json'), 'utf8');
    expect(files).not.toContain(demoMerchant.merchantKey);
    expect(files).not.toContain(demoMerchant.apiKey);
  });
});

describe.concurrent('error kinds and exit codes', () => {
  // One sandbox per fault, faulting every request to the merchant currency list.
  const cases: Array<[string, number, string, string[]]> = [
    ['500', 7, 'server', []],
    ['html', 7, 'server', []],
    ['malformed', 7, 'server', []],
    ['empty', 7, 'server', []],
    ['shape', 7, 'server', []],
    ['slow', 8, 'network', ['--timeout', '0.3']],
    ['drop', 8, 'network', []],
    ['401', 3, 'auth', []],
  ];
  for (const [fault, code, kind, extra] of cases) {
    it(`${fault} → exit ${code} (${kind}), one line on stderr, no stack`, async () => {
      const sb = await sandbox({
        faults: [fault as never],
        rate: 1,
        faultPaths: ['/merchant/currencies'],
        slowMs: 2000,
      });
      try {
        const r = await run(['currencies', '--merchant', '--json', ...extra], { env: cliEnv(sb, tempDir()) });
        expect(r.code).toBe(code);
        const { error } = r.json();
        expect(error.kind).toBe(kind);
        expect(Object.keys(error).sort()).toEqual(
          expect.arrayContaining(['fields', 'kind', 'message', 'status']),
        );
        expect(noStack(r.stderr)).toBe(true);
        const human = await run(['currencies', '--merchant', ...extra], { env: cliEnv(sb, tempDir()) });
        expect(human.code).toBe(code);
        expect(human.stdout).toBe('');
        expect(human.stderr).toMatch(/^mpay: /);
        expect(noStack(human.stderr)).toBe(true);
      } finally {
        await sb.close();
      }
    });
  }

  it('connection refused → exit 8 after retries', async () => {
    const r = await run(['countries', '--json', '--debug'], {
      env: cliEnv({ url: 'http://127.0.0.1:9' }, tempDir()),
    });
    expect(r.code).toBe(8);
    expect(r.json().error.message).toMatch(/connection refused/);
    expect(r.stderr.match(/! retry/g)).toHaveLength(2);
  });

  it('GETs are retried on a 5xx and succeed when the server recovers', async () => {
    const sb = await sandbox({
      faults: ['500'],
      rate: 0.5,
      faultPaths: ['/public/countries'],
      random: sequence([0.1, 0, 0.9]),
    });
    try {
      const r = await run(['countries', '--json', '--debug'], { env: cliEnv(sb, tempDir()) });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/! retry 1/);
    } finally {
      await sb.close();
    }
  });

  it('a timeout that is not seconds is a usage error, from the flag or the variable', async () => {
    const flag = await run(['countries', '--timeout', 'abc', '--json'], {
      env: cliEnv(undefined, tempDir()),
    });
    expect(flag.code).toBe(2);
    expect(flag.json().error.message).toBe('Invalid --timeout / MPAY_TIMEOUT "abc": expected seconds');
    const variable = await run(['countries', '--json'], {
      env: cliEnv(undefined, tempDir(), { MPAY_TIMEOUT: '-1' }),
    });
    expect(variable.code).toBe(2);
  });

  it('bad flags are usage errors (exit 2)', async () => {
    const r = await run(['currencies', '--nope', '--json'], { env: cliEnv(undefined, tempDir()) });
    expect(r.code).toBe(2);
    expect(r.json().error.kind).toBe('usage');
    expect(noStack(r.stderr)).toBe(true);
  });
});

/** A random() that plays the given values in a loop: fault, pick, then no fault. */
function sequence(values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

describe.concurrent('login, profiles, config, whoami, doctor', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  const bare = (dir: string, extra: Record<string, string> = {}) => ({
    MPAY_CONFIG_DIR: dir,
    MPAY_RETRY_BASE_MS: '20',
    ...extra,
  });

  it('login --merchant-key-stdin checks the key, saves a 0600 profile, and masks it in every listing', async () => {
    const dir = tempDir();
    const login = await run(
      [
        'login',
        '--merchant-key-stdin',
        '--site-id',
        '1',
        '--api-key',
        demoMerchant.apiKey,
        '--env',
        'sandbox',
        '--base-url',
        sb.url,
        '--json',
      ],
      {
        env: bare(dir),
        input: `${demoMerchant.merchantKey}\n`,
      },
    );
    expect(login.code).toBe(0);
    expect(login.json()).toMatchObject({ profile: 'default', env: 'sandbox', verified: true });
    expect(login.stdout).not.toContain(demoMerchant.merchantKey);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    const list = await run(['profiles', 'list', '--json'], { env: bare(dir) });
    expect(list.json()[0]).toMatchObject({
      name: 'default',
      current: true,
      merchant_key: 'mk_…emo',
      api_key: 'ak_…emo',
    });
    expect(list.stdout).not.toContain(demoMerchant.merchantKey);
    const who = await run(['whoami', '--json'], { env: bare(dir) });
    expect(who.json()).toMatchObject({
      profile: 'default',
      env: 'sandbox',
      base_url: sb.url,
      cached_token: true,
      merchant_key_from: 'profile',
    });
    expect(who.json().merchant_key_fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
    // The table lists the same cached token the JSON does.
    const whoTable = await run(['whoami'], { env: bare(dir) });
    expect(whoTable.stdout).toContain(
      `${who.json().cached_tokens[0].merchant_key_fingerprint} (this key, made `,
    );
    const doctor = await run(['doctor', '--json'], { env: bare(dir) });
    expect(doctor.code).toBe(0);
    expect(doctor.json().ok).toBe(true);
    expect(doctor.json().checks.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining([
        'base URL',
        'API reachable',
        'merchant key',
        'bearer token',
        'site id',
        'API key',
        'deposits',
        'withdrawals',
        'collection gateways',
        'disbursement gateways',
      ]),
    );
    // The probe created nothing.
    expect(sb.state.list()).toHaveLength(0);
  });

  it('login refuses a wrong key and saves nothing', async () => {
    const dir = tempDir();
    const r = await run(
      [
        'login',
        '--merchant-key-stdin',
        '--site-id',
        '1',
        '--api-key',
        'x',
        '--env',
        'sandbox',
        '--base-url',
        sb.url,
      ],
      { env: bare(dir), input: 'wrong' },
    );
    expect(r.code).toBe(3);
    expect((await run(['profiles', 'list', '--json'], { env: bare(dir) })).json()).toEqual([]);
  });

  it('login without a terminal names the missing flag', async () => {
    const r = await run(['login', '--env', 'sandbox', '--base-url', sb.url, '--json'], {
      env: bare(tempDir()),
    });
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/--merchant-key-stdin/);
  });

  it('doctor fails on a wrong API key or site id, with the exit code of the failure', async () => {
    const api = await run(['doctor', '--json'], { env: cliEnv(sb, tempDir(), { MPAY_API_KEY: 'wrong' }) });
    expect(api.code).toBe(3);
    const failed = api.json().checks.filter((c: { ok: boolean }) => !c.ok);
    expect(failed.map((c: { name: string }) => c.name)).toEqual(['API key']);
    const site = await run(['doctor'], { env: cliEnv(sb, tempDir(), { MPAY_SITE_ID: '7' }) });
    expect(site.code).toBe(3);
    expect(site.stdout).toMatch(/✗ site id: 7 is not among the merchant services \(1\)/);
  });

  it('the doctor report fits an 80-column terminal, long checks folded under their name; a pipe gets them whole', async () => {
    const env = cliEnv(sb, tempDir(), { MPAY_SITE_ID: '7' });
    const piped = await run(['doctor'], { env });
    expect(piped.stdout).toMatch(
      /^✓ wallet gateways: .*\(interbank-etransfer\); `mpay config set .*` settles it$/m,
    );
    const r = await run(['doctor'], { env, tty: true, width: 80 });
    const lines = r.stdout.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    // The wallet gateways list runs over several lines, each after the first indented.
    const at = lines.findIndex((l) => l.startsWith('✓ wallet gateways:'));
    expect(lines[at + 1]).toMatch(/^ {2}\S/);
    expect(lines.slice(at).join(' ')).toMatch(/12 Interac e-Transfer \(interbank-etransfer\)/);
    expect(r.stdout, r.stdout).toMatch(/\n {4}hint: The Site ID/);
  });

  it('profiles use/remove and config set/get/list', async () => {
    const dir = tempDir();
    for (const p of ['one', 'two']) {
      const r = await run(
        ['login', '--profile', p, '--env', 'sandbox', '--base-url', sb.url, '--site-id', '1', '--no-verify'],
        { env: bare(dir, { MPAY_MERCHANT_KEY: 'k', MPAY_API_KEY: 'a' }) },
      );
      expect(r.code).toBe(0);
    }
    expect((await run(['whoami', '--json'], { env: bare(dir) })).json().profile).toBe('two');
    expect((await run(['profiles', 'use', 'one'], { env: bare(dir) })).code).toBe(0);
    expect((await run(['whoami', '--json'], { env: bare(dir) })).json().profile).toBe('one');
    expect((await run(['profiles', 'use', 'nope'], { env: bare(dir) })).code).toBe(2);
    expect(
      (await run(['config', 'set', 'stage.base_url', 'https://stage.example.com'], { env: bare(dir) })).code,
    ).toBe(0);
    expect((await run(['config', 'get', 'stage.base_url'], { env: bare(dir) })).stdout.trim()).toBe(
      'https://stage.example.com',
    );
    expect(
      (await run(['config', 'set', 'live.base_url', 'http://api.example.com'], { env: bare(dir) })).code,
    ).toBe(2);
    const list = await run(['config', 'list', '--json'], { env: bare(dir) });
    expect(list.json()).toMatchObject({
      profile: 'one',
      env: 'sandbox',
      'stage.base_url': 'https://stage.example.com',
      'live.base_url': null,
    });
    expect((await run(['profiles', 'remove', 'two', '--yes'], { env: bare(dir) })).code).toBe(0);
    expect(
      (await run(['profiles', 'list', '--json'], { env: bare(dir) }))
        .json()
        .map((p: { name: string }) => p.name),
    ).toEqual(['one']);
    const noUrl = await run(['countries', '--env', 'live', '--json'], { env: bare(dir) });
    expect(noUrl.code).toBe(2);
    expect(noUrl.json().error.hint).toMatch(/config set live.base_url/);
  });

  it('a login that makes another profile current says so, and the line it prints goes back, pasted as is', async () => {
    const dir = tempDir();
    const login = (profile: string, json = false) =>
      run(loginArgs(profile, sb.url, ...(json ? ['--json'] : [])), {
        env: bare(dir, { MPAY_MERCHANT_KEY: 'k', MPAY_API_KEY: 'a' }),
      });
    // a name a shell would take apart, were it printed unquoted
    const first = `o'neil $(touch pwned) ü`;
    const one = await login(first);
    expect(one.code).toBe(0);
    expect(one.stdout + one.stderr).not.toMatch(/no longer/);
    const two = await login('two');
    expect(two.stdout).toContain(`The current profile is now two, no longer ${first}.`);
    // the command is a code span, which the IO folds only with ` \` on a terminal
    const back = printedCommand(two.stdout, 'Back with: ').replace(/^`(.*)`$/, '$1');
    // pasted where the variables point elsewhere: only the config folder is this run's
    const r = await runPrinted(back, { MPAY_CONFIG_DIR: dir, MPAY_KEYRING: 'off', HOME: tempDir() });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect((await run(['whoami', '--json'], { env: bare(dir) })).json().profile).toBe(first);
    // the same login again changes nothing current, and says nothing of it; --json carries the field
    expect((await login(first, true)).json()).not.toHaveProperty('previous_profile');
    expect((await login('two', true)).json().previous_profile).toBe(first);
    // pointed at another server, the profile says where it was (its transactions stay there)
    const moved = await run(loginArgs('two', 'http://127.0.0.1:9', '--json', '--force'), {
      env: bare(dir, { MPAY_MERCHANT_KEY: 'k', MPAY_API_KEY: 'a' }),
    });
    expect(moved.json().previous_base_url).toBe(sb.url);
    const text = await run(loginArgs('two', sb.url, '--force'), {
      env: bare(dir, { MPAY_MERCHANT_KEY: 'k', MPAY_API_KEY: 'a' }),
    });
    expect(text.stdout).toContain(`sandbox at ${sb.url} (it was http://127.0.0.1:9),`);
  });

  it('a tokens file left readable by others is tightened with a warning', async () => {
    const dir = tempDir();
    expect((await run(['token'], { env: cliEnv(sb, dir) })).code).toBe(0);
    const { chmodSync } = await import('node:fs');
    chmodSync(join(dir, 'tokens.json'), 0o644);
    const r = await run(['whoami'], { env: bare(dir) });
    expect(r.stderr).toMatch(/tokens.json was mode 644; set it to 600/);
    expect(statSync(join(dir, 'tokens.json')).mode & 0o777).toBe(0o600);
  });

  it('a config folder left readable by others is tightened with a warning', async () => {
    const dir = tempDir();
    const { chmodSync } = await import('node:fs');
    chmodSync(dir, 0o755);
    const r = await run(['whoami'], { env: bare(dir) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/was mode 755; set it to 700/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('docs prints the documentation URL', async () => {
    const r = await run(['docs', '--json', '--no-open'], { env: cliEnv(sb, tempDir()) });
    expect(r.json().url).toBe(`${sb.url}/restapi/documentation`);
  });
});

describe('help', () => {
  it('every command has a summary and examples', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
    const commands = Object.values(manifest.commands) as Array<{
      id: string;
      summary?: string;
      description?: string;
      examples?: string[];
    }>;
    expect(commands.length).toBeGreaterThan(20);
    for (const c of commands) {
      expect(c.summary ?? c.description, c.id).toBeTruthy();
      expect(c.examples?.length ?? 0, c.id).toBeGreaterThan(0);
    }
  });

  it('--help shows examples and --version answers', async () => {
    const help = await spawnRun(['deposit', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/EXAMPLES/);
    expect(help.stdout).toMatch(/--reference/);
    const version = await spawnRun(['--version']);
    expect(version.stdout).toMatch(/^mpay-cli\/\d+\.\d+\.\d+ /);
  });
});
