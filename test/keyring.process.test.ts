// The merchant key, API key and tokens in the OS keyring (issue: secrets). A real Secret Service: a
// gnome-keyring-daemon on a private D-Bus session bus of this test, with its own home and data folders,
// never the user's keyring (`.ci/run` says what to install, or with CI=true installs it: test/tools.ts).
// Also: no D-Bus at all (the file, said loudly), a bus that never answers and a Secret Service that never
// answers (mpay reports them and ends; the test's own time limit is what a hang would trip), and that no
// file of the config folder holds a secret after a login with a keyring.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { fingerprint } from '../src/api/redact.js';
import { bin, mpayOnPath, requestCount, root, run, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { without } from './tools.js';
import { builtExe } from './exe.js';

/** Skipped where a Secret Service cannot be started (never with CI=true): .ci/run says what to install. */
const noSecretService = without('gnome-keyring-daemon', 'dbus-daemon', 'dbus-send', 'secret-tool', 'gdbus');

const pexec = promisify(execFile);

interface PrivateKeyring {
  env: Record<string, string>;
  daemonPid: number;
  stop(): void;
}

/**
 * Every private keyring started in this file, stopped in afterAll and, should the worker end first, at its
 * exit: a test that times out never reaches its `finally`, and a daemon it stopped (SIGSTOP) would outlive
 * the run.
 */
const started = new Set<() => void>();
function stopAll(): void {
  for (const stop of started) stop();
}
process.once('exit', stopAll);

/**
 * A command line whose process the kernel kills when this worker ends, however it ends (SIGKILL, a crash,
 * a run stopped mid-test): setpriv sets the parent-death signal and then runs the program in its place.
 * The afterAll and exit handlers above cover an orderly end; this covers the rest.
 */
function diesWithWorker([program, ...args]: string[]): [string, string[]] {
  return ['setpriv', ['--pdeathsig', 'KILL', program!, ...args]];
}

/** A session bus and an unlocked Secret Service of this test's own. */
async function privateKeyring(): Promise<PrivateKeyring> {
  const home = tempDir('mpay-kr-home-');
  const runtime = tempDir('mpay-kr-run-');
  // its own process group, so that what it starts goes with it
  const bus: ChildProcess = spawn(
    ...diesWithWorker(['dbus-daemon', '--session', '--nofork', '--print-address=1']),
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    },
  );
  let daemonPid = 0;
  let daemon: ChildProcess | undefined;
  const stop = () => {
    started.delete(stop);
    for (const [pid, signals] of [
      [daemonPid, ['SIGCONT', 'SIGKILL']],
      [daemon?.pid ?? 0, ['SIGCONT', 'SIGKILL']],
      [-bus.pid!, ['SIGCONT', 'SIGKILL']],
    ] as const)
      for (const signal of signals)
        try {
          if (pid) process.kill(pid, signal);
        } catch {
          // already gone
        }
  };
  started.add(stop);
  try {
    const address = await new Promise<string>((resolve, reject) => {
      let out = '';
      bus.on('error', reject);
      bus.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
      });
    });
    const env = {
      HOME: home,
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_RUNTIME_DIR: runtime,
      DBUS_SESSION_BUS_ADDRESS: address,
      // A Secret Service that works answers long before any limit; with the default limit (3 s for the
      // bus, plus 2 s for the request's child) a run on a loaded machine, the tests at once, would give
      // up on it and count it broken. None of these tests is about the default: a wide limit costs no
      // time where the keyring answers, and the library's own 2 s wait still ends a request to a
      // stopped one.
      MPAY_KEYRING_TIMEOUT: '30',
    };
    // --unlock reads the new login keyring's password from stdin. In the foreground, the daemon is this
    // worker's own child, so that it dies with the worker (diesWithWorker); gdbus waits for its name on
    // the bus, which then tells its pid.
    daemon = spawn(
      ...diesWithWorker(['gnome-keyring-daemon', '--foreground', '--unlock', '--components=secrets']),
      { env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    daemon.on('error', () => {}); // a daemon that cannot start: gdbus below times out and says so
    daemon.stdin!.end('test-password');
    await pexec('gdbus', ['wait', '--session', '--timeout', '60', 'org.freedesktop.secrets'], {
      env: { ...process.env, ...env },
    });
    const { stdout } = await pexec(
      'dbus-send',
      [
        '--session',
        '--dest=org.freedesktop.DBus',
        '--print-reply',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.GetConnectionUnixProcessID',
        'string:org.freedesktop.secrets',
      ],
      { env: { ...process.env, ...env } },
    );
    daemonPid = Number(/uint32 (\d+)/.exec(stdout)?.[1]);
    expect(daemonPid).toBeGreaterThan(0);
    return { env, daemonPid, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

/** What the Secret Service holds for mpay's entries of one config folder, read with secret-tool. */
async function keyringEntry(kr: PrivateKeyring, configDir: string, account: string): Promise<string | null> {
  try {
    const { stdout } = await pexec(
      'secret-tool',
      ['lookup', 'service', `mpay:${configDir}`, 'username', account],
      { env: { ...process.env, ...kr.env } },
    );
    return stdout;
  } catch {
    return null; // secret-tool exits 1 when there is no such entry
  }
}

async function entriesOf(kr: PrivateKeyring, configDir: string): Promise<string[]> {
  const { stdout, stderr } = await pexec('secret-tool', ['search', '--all', 'service', `mpay:${configDir}`], {
    env: { ...process.env, ...kr.env },
  });
  return [...`${stdout}\n${stderr}`.matchAll(/attribute\.username = (.*)/g)].map((m) => m[1]!);
}

/** Every file under a folder, with its text. */
function filesUnder(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const file = join(e.parentPath, e.name);
    out.push({ file, text: readFileSync(file, 'latin1') });
  }
  return out;
}

const secrets = [demoMerchant.merchantKey, demoMerchant.apiKey];

type Sb = Awaited<ReturnType<typeof sandbox>>;
/**
 * One Secret Service for the file's tests that do not stop it (each keeps its entries under a config
 * folder of its own), started once; the tests run at once.
 */
let kr: PrivateKeyring;
beforeAll(async () => {
  if (!noSecretService) kr = await privateKeyring();
}, 90_000);
afterAll(stopAll);

/**
 * A sandbox of the test's own (in this process, cheap): the tests run at once, and those that count the
 * token requests must see only their own. Closed when the test ends, however it ends (the test's own
 * onTestFinished: a concurrent test's hooks are the ones of its context).
 */
async function ownSandbox(onTestFinished: TestContext['onTestFinished']): Promise<Sb> {
  const sb = await sandbox();
  onTestFinished(() => sb.close());
  return sb;
}

/**
 * Runs an mpay command in this process (test/in-process.ts) with a private config folder and the given
 * keyring variables (none: no D-Bus): what is checked is where the secrets go and what is said, not the
 * process. Its keyring requests are still child processes of their own (bin/run.js), as in a real run.
 */
function mpayWith(configDir: string, keyringEnv: Record<string, string | undefined>) {
  return (args: string[], extra: Record<string, string> = {}, input?: string) =>
    mpay(args, { env: { MPAY_CONFIG_DIR: configDir, ...keyringEnv, ...extra }, input });
}

/**
 * bin/run.js in a process of its own, for what is about the process (that it ends, whatever the keyring
 * does; a working folder of its own), killed by the kernel should this worker end first.
 */
function spawnedWith(configDir: string, keyringEnv: Record<string, string | undefined>) {
  return (args: string[], extra: Record<string, string> = {}, input?: string, cwd?: string) =>
    run(args, {
      command: diesWithWorker([process.execPath, bin]).flat(),
      // a run that has not ended by then is killed and fails its test, code null, with what it printed
      timeoutMs: 90_000,
      env: { MPAY_CONFIG_DIR: configDir, ...keyringEnv, ...extra },
      input,
      cwd,
    });
}

function loginArgs(url: string, more: string[] = []): string[] {
  return [
    'login',
    '--env',
    'sandbox',
    '--base-url',
    url,
    '--merchant-key-stdin',
    '--site-id',
    demoMerchant.siteId,
    '--api-key',
    demoMerchant.apiKey,
    ...more,
  ];
}

// Each keyring request is a child process of its own (config/keyring.ts): slower than the library in process.
describe.skipIf(noSecretService)('with a Secret Service', { timeout: 120_000, concurrent: true }, () => {
  it('login stores the secrets in the keyring and none in any file; later runs read them from there', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const dir = join(tempDir(), 'mpay');
    const m = mpayWith(dir, kr.env);
    const login = await m(loginArgs(sb.url), {}, demoMerchant.merchantKey);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Secrets kept in the Secret Service');
    expect(login.stderr).not.toMatch(/no usable keyring/);

    // Nothing secret in any file of the config folder (config.json, tokens.json, locks, anything).
    const tokenCalls = await requestCount(sb, 'POST /auth/merchant/token/generate');
    const files = filesUnder(dir);
    expect(files.map((f) => f.file)).toContain(join(dir, 'config.json'));
    for (const f of files) for (const s of secrets) expect(f.text, f.file).not.toContain(s);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config.profiles.default).toMatchObject({ secretStore: 'keyring', keyringName: 'Secret Service' });
    expect(config.profiles.default.merchantKey).toBeUndefined();
    const tokens = JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'));
    const [tokenKey] = Object.keys(tokens);
    expect(tokens[tokenKey!]).toMatchObject({ in: 'keyring' });
    expect(tokens[tokenKey!].token).toBeUndefined();

    // The Secret Service itself holds them, as another program reads it: one entry for the profile.
    const entry = JSON.parse((await keyringEntry(kr, dir, 'profile:default'))!);
    expect(entry).toMatchObject({ merchant_key: demoMerchant.merchantKey, api_key: demoMerchant.apiKey });
    expect(entry.tokens[tokenKey!.slice('default|'.length)]).toMatch(/\S{16,}/);

    // A merchant call reads the key and the cached token from the keyring: no new token is asked for.
    const cur = await m(['currencies', '--merchant', '--json']);
    expect(cur.code, cur.stderr).toBe(0);
    expect(cur.json().length).toBeGreaterThan(0);
    expect(await requestCount(sb, 'POST /auth/merchant/token/generate')).toBe(tokenCalls);

    const status = await m(['auth', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const r = status.json();
    expect(r.keyring).toMatchObject({ name: 'Secret Service', usable: true, problem: null });
    expect(r.profiles[0]).toMatchObject({
      profile: 'default',
      current: true,
      secrets: 'keyring',
      keyring: 'Secret Service',
      merchant_key_fingerprint: fingerprint(demoMerchant.merchantKey),
      problem: null,
      move_command: null,
    });
    expect(r.profiles[0].tokens).toEqual([
      expect.objectContaining({ env: 'sandbox', base_url: sb.url, stored: 'keyring' }),
    ]);
    expect(r.profiles[0].tokens[0].age_seconds).toBeGreaterThanOrEqual(0);
    // whoami still answers, saying where the key came from
    const who = await m(['whoami', '--json']);
    expect(who.json()).toMatchObject({ merchant_key_from: 'keyring', cached_token: true });

    // logout --all takes the keyring's entries away too.
    expect(await entriesOf(kr, dir)).toEqual(['profile:default']);
    const out = await m(['logout', '--all']);
    expect(out.code, out.stderr).toBe(0);
    expect(await entriesOf(kr, dir)).toEqual([]);
    const after = await m(['auth', 'status', '--json']);
    expect(after.code).toBe(3);
    expect(after.json().profiles[0].secrets).toBe('none');
  });

  it('two config folders with a profile of the same name keep their own entries; profiles remove deletes them', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const dirA = join(tempDir(), 'mpay');
    const dirB = join(tempDir(), 'mpay');
    const a = mpayWith(dirA, kr.env);
    const b = mpayWith(dirB, kr.env);
    expect((await a(loginArgs(sb.url), {}, demoMerchant.merchantKey)).code).toBe(0);
    const otherArgs = loginArgs(sb.url, ['--no-verify']);
    otherArgs[otherArgs.indexOf(demoMerchant.apiKey)] = 'ak_other';
    const other = await b(otherArgs, {}, 'mk_other');
    expect(other.code, other.stderr).toBe(0);
    expect((await a(['whoami', '--json'])).json().merchant_key_fingerprint).toBe(
      fingerprint(demoMerchant.merchantKey),
    );
    expect((await b(['whoami', '--json'])).json().merchant_key_fingerprint).toBe(fingerprint('mk_other'));
    const removed = await b(['profiles', 'remove', 'default', '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await entriesOf(kr, dirB)).toEqual([]);
    expect(await entriesOf(kr, dirA)).toEqual(['profile:default']);
  });

  it('--insecure-storage over a profile in the keyring moves it to the file and deletes its entry', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const dir = join(tempDir(), 'mpay');
    const m = mpayWith(dir, kr.env);
    expect((await m(loginArgs(sb.url), {}, demoMerchant.merchantKey)).code).toBe(0);
    expect(await entriesOf(kr, dir)).toEqual(['profile:default']);
    const again = await m(loginArgs(sb.url, ['--insecure-storage']), {}, demoMerchant.merchantKey);
    expect(again.code, again.stderr).toBe(0);
    expect(await entriesOf(kr, dir)).toEqual([]);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(demoMerchant.merchantKey);
  });

  it('one folder named two ways (a trailing slash, a relative path, a link) is one set of entries', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const parent = tempDir();
    const dir = join(parent, 'mpay');
    expect((await mpayWith(dir, kr.env)(loginArgs(sb.url), {}, demoMerchant.merchantKey)).code).toBe(0);
    const link = join(tempDir(), 'link');
    symlinkSync(parent, link);
    // A relative name is read against the working folder: those run in a process of their own there.
    const names = [
      [`${dir}/`, undefined],
      [join(link, 'mpay'), undefined],
      ['mpay', parent],
      ['./x/../mpay/', parent],
    ] as const;
    const runs = await Promise.all(
      names.map(([name, cwd]) =>
        cwd
          ? spawnedWith(name, kr.env)(['whoami', '--json'], {}, undefined, cwd)
          : mpayWith(name, kr.env)(['whoami', '--json']),
      ),
    );
    runs.forEach((r, i) => {
      expect(r.code, `${names[i]![0]}: ${r.stderr}`).toBe(0);
      expect(r.json().merchant_key_from).toBe('keyring');
    });
  });

  it('a profile name with a control character or | is refused before anything is stored', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const dir = join(tempDir(), 'mpay');
    const m = mpayWith(dir, kr.env);
    for (const name of ['a|b', 'x\u001b]0;pwn\u0007', '', 'new\nline']) {
      const r = await m(
        ['login', '--profile', name, ...loginArgs(sb.url).slice(1)],
        {},
        demoMerchant.merchantKey,
      );
      expect(r.code, name).toBe(2);
      expect(r.stderr).toMatch(/Invalid profile name/);
      expect(r.stderr).not.toContain('\u001b');
    }
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('--insecure-storage keeps them in config.json (0600) and the keyring gets nothing', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const dir = join(tempDir(), 'mpay');
    const m = mpayWith(dir, kr.env);
    const login = await m(loginArgs(sb.url, ['--insecure-storage', '--json']), {}, demoMerchant.merchantKey);
    expect(login.code, login.stderr).toBe(0);
    expect(login.json().secrets).toEqual({ store: 'file', why_file: 'chosen with --insecure-storage' });
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(demoMerchant.merchantKey);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(await entriesOf(kr, dir)).toEqual([]);
  });

  it('a profile an older mpay saved in the file keeps working, and the command auth status names moves it', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const dir = join(tempDir(), 'mpay');
    const m = mpayWith(dir, kr.env);
    // config.json and tokens.json as mpay wrote them before the keyring: secrets in clear, no marker.
    const first = await m(loginArgs(sb.url, ['--insecure-storage']), {}, demoMerchant.merchantKey);
    expect(first.code, first.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    delete config.profiles.default.secretStore;
    config.profiles['acme $(x)'] = { ...config.profiles.default };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const tokenCalls = await requestCount(sb, 'POST /auth/merchant/token/generate');
    expect((await m(['balances', '--json'])).code).toBe(0);
    expect(await requestCount(sb, 'POST /auth/merchant/token/generate')).toBe(tokenCalls);

    const status = await m(['auth', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const row = status.json().profiles.find((p: { profile: string }) => p.profile === 'acme $(x)');
    expect(row).toMatchObject({ secrets: 'file', keyring: null });
    const doctor = await m(['doctor', '--profile', 'acme $(x)']);
    expect(doctor.stdout).toContain(row.move_command);

    // The printed command, run literally by a shell whose environment names the default profile (as
    // runPrinted does, with this file's wider limit).
    const moved = await run([], {
      command: ['/bin/sh', '-c', row.move_command],
      env: { MPAY_CONFIG_DIR: dir, MPAY_PROFILE: 'default', ...kr.env, PATH: mpayOnPath() },
      timeoutMs: 90_000,
    });
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain("Moved profile acme $(x)'s merchant key, API key");
    const after = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(after.profiles['acme $(x)'].merchantKey).toBeUndefined();
    expect(after.profiles['acme $(x)'].secretStore).toBe('keyring');
    expect(after.profiles.default.merchantKey).toBe(demoMerchant.merchantKey); // only the one named
    expect(JSON.parse((await keyringEntry(kr, dir, 'profile:acme $(x)'))!).api_key).toBe(demoMerchant.apiKey);
    // The moved profile still works, from the keyring.
    const bal = await m(['balances', '--json', '--profile', 'acme $(x)']);
    expect(bal.code, bal.stderr).toBe(0);
  });
});

describe.skipIf(noSecretService)('the single executable', { timeout: 120_000, concurrent: true }, () => {
  it('loads the keyring addon from its assets, checked by sha256, through a private cache folder', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const exeDir = tempDir('mpay-exe-kr-');
    const exe = join(exeDir, 'mpay');
    copyFileSync(await builtExe(), exe); // built by the first file that needs it (test/exe.ts)
    const cache = tempDir('mpay-exe-cache-');
    const dir = join(tempDir(), 'mpay');
    const m = (args: string[], input?: string) =>
      run(args, {
        command: diesWithWorker([exe]).flat(),
        timeoutMs: 90_000,
        env: { MPAY_CONFIG_DIR: dir, XDG_CACHE_HOME: cache, ...kr.env },
        input,
      });
    const login = await m(loginArgs(sb.url), demoMerchant.merchantKey);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Secrets kept in the Secret Service');
    const native = join(cache, 'mpay', 'native');
    const [addon] = readdirSync(native);
    const scope = join(root, 'node_modules', '@napi-rs');
    const pkg = readdirSync(scope).find((d) => d.startsWith(`keyring-${process.platform}-${process.arch}`))!;
    const binary = readdirSync(join(scope, pkg)).find((f) => f.endsWith('.node'))!;
    const shipped = readFileSync(join(scope, pkg, binary));
    expect(readFileSync(join(native, addon!)).equals(shipped)).toBe(true);
    expect(statSync(native).mode & 0o777).toBe(0o700);
    expect(statSync(join(native, addon!)).mode & 0o777).toBe(0o600);
    for (const f of filesUnder(dir)) for (const s of secrets) expect(f.text, f.file).not.toContain(s);

    // A cached addon that is not the executable's own bytes is replaced, never loaded.
    writeFileSync(join(native, addon!), 'not the addon');
    const tokenCalls = await requestCount(sb, 'POST /auth/merchant/token/generate');
    const cur = await m(['currencies', '--merchant', '--json']);
    expect(cur.code, cur.stderr).toBe(0);
    expect(await requestCount(sb, 'POST /auth/merchant/token/generate')).toBe(tokenCalls);
    expect(readFileSync(join(native, addon!)).equals(shipped)).toBe(true);
  }, 180_000); // room for that build
});

describe('without a working keyring', { timeout: 120_000, concurrent: true }, () => {
  it('no D-Bus at all: login says so loudly and keeps the secrets in the 0600 file', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const dir = join(tempDir(), 'mpay');
    const m = mpayWith(dir, {});
    const login = await m(loginArgs(sb.url), {}, demoMerchant.merchantKey);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/warning: no usable keyring \(no D-Bus session bus/);
    expect(login.stderr).toContain('mpay auth migrate');
    expect(login.stdout).toContain('not in a keyring');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(demoMerchant.apiKey);
    const status = await m(['auth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Keyring: Secret Service, keyring not available: no D-Bus session bus/);
    const doctor = await m(['doctor', '--json']);
    const check = doctor.json().checks.find((c: { name: string }) => c.name === 'secrets');
    expect(check.detail).toMatch(/mode 0600\); no keyring: no D-Bus session bus/);
  });

  it('a session bus that never answers is reported after MPAY_KEYRING_TIMEOUT, and mpay ends', async ({
    onTestFinished,
  }) => {
    const sb = await ownSandbox(onTestFinished);
    const socket = join(tempDir(), 'bus');
    const silent: Server = createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => silent.listen(socket, r));
    try {
      const dir = join(tempDir(), 'mpay');
      const m = spawnedWith(dir, { DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}` });
      const login = await m(loginArgs(sb.url), { MPAY_KEYRING_TIMEOUT: '1' }, demoMerchant.merchantKey);
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain('the D-Bus session bus did not answer within 1 s');
      const status = await m(['auth', 'status', '--json'], { MPAY_KEYRING_TIMEOUT: '1' });
      expect(status.json().keyring.problem).toBe('the D-Bus session bus did not answer within 1 s');
    } finally {
      silent.close();
    }
  });

  it.skipIf(noSecretService)(
    'a Secret Service that stops answering: login falls back loudly, a keyring profile fails with exit 9, nothing hangs',
    async ({ onTestFinished }) => {
      const sb = await ownSandbox(onTestFinished);
      // A Secret Service of its own, as it stops it: stopped (SIGCONT, SIGKILL) when the test ends,
      // however it ends, besides the file's afterAll and the worker's exit.
      const own = await privateKeyring();
      onTestFinished(own.stop);
      try {
        const dir = join(tempDir(), 'mpay');
        const login = await mpayWith(dir, own.env)(loginArgs(sb.url), {}, demoMerchant.merchantKey);
        expect(login.code, login.stderr).toBe(0);
        process.kill(own.daemonPid, 'SIGSTOP');
        // What follows is that mpay ends, whatever the keyring does: processes of their own.
        const m = spawnedWith(dir, own.env);
        const other = join(tempDir(), 'mpay');
        const otherLogin = spawnedWith(other, own.env)(loginArgs(sb.url), {}, demoMerchant.merchantKey);
        const cur = await m(['currencies', '--merchant', '--json']);
        expect(cur.code, cur.stderr).toBe(9);
        expect(cur.stderr).toMatch(
          /could not read from the Secret Service: DBus error: Did not receive a reply\n/,
        );
        // logout does what it can, says what the keyring still holds, and exits 9
        const out = await m(['logout']);
        expect(out.code).toBe(9);
        expect(out.stderr).toMatch(/the keyring entry of profile default still holds 1 token/);
        expect(JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'))).toEqual({});
        // a profile whose keyring does not answer can still be removed; what is left is said
        const gone = await m(['profiles', 'remove', 'default', '--yes']);
        expect(gone.code).toBe(9);
        expect(gone.stderr).toMatch(/keyring entry of profile default .* could not be deleted/);
        expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles).toEqual({});
        const fellBack = await otherLogin;
        expect(fellBack.code, fellBack.stderr).toBe(0);
        expect(fellBack.stderr).toMatch(/no usable keyring \(the Secret Service did not work/);
        expect(readFileSync(join(other, 'config.json'), 'utf8')).toContain(demoMerchant.merchantKey);
      } finally {
        own.stop();
      }
    },
  );
});
