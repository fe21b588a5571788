// The read-side commands against the sandbox: output forms, the error kinds of the README's table with their exit
// codes and JSON error objects, token refresh, redaction, permissions, login and profiles. The commands
// run in-process (test/in-process.ts); help, --version and the exit code of each kind go through the real
// bin/run.js.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loginArgs, printedCommand, runPrinted, sandbox, tempDir, run as spawnRun } from './helpers.js';
import { mpay as run } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

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
});

describe('help', () => {
  it('--help shows examples and --version answers', async () => {
    const help = await spawnRun(['deposit', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/EXAMPLES/);
    expect(help.stdout).toMatch(/--reference/);
    const version = await spawnRun(['--version']);
    expect(version.stdout).toMatch(/^mpay-cli\/\d+\.\d+\.\d+ /);
  });
});
