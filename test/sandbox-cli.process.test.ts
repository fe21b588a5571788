// `mpay sandbox` as a process: it prints its URL and the demo credentials, serves, keeps state in --data,
// and stops cleanly on Ctrl-C (SIGINT). The tests share nothing (each its own sandbox, port and folders)
// and run at once; the clients that only feed a sandbox run in-process.
import { expect, it, type TestContext } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliEnv, sandboxProcess, customerArgs, printedCommand, run, runPrinted, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import Database from 'libsql';

/** Several sandboxes start at once, each a Node start or two, on a machine that may be loaded. */
const slow = { timeout: 90_000 };

/** The test's own hook that runs when it ends, however it ends (a concurrent test's is its context's). */
type Finished = TestContext['onTestFinished'];

function startSandboxProcess(args: string[], onTestFinished: Finished) {
  const child = sandboxProcess(args, onTestFinished);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const url = new Promise<string>((resolve, reject) => {
    // a deadline that says what was printed, well inside the test's own limit (a loaded machine
    // starts several of these at once)
    const timer = setTimeout(() => reject(new Error(`no URL printed within 60 s: ${out}${err}`)), 60_000);
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, url, exited, output: () => out, errors: () => err };
}

it.concurrent(
  'prints its URL and the demo credentials, serves the API, keeps --data, stops on SIGINT',
  slow,
  async ({ onTestFinished }) => {
    const data = join(tempDir(), 'state.json');
    // an empty (0-byte) data file: a new one, which the banner says
    writeFileSync(data, '');
    const sb = startSandboxProcess(['--data', data], onTestFinished);
    const url = await sb.url;
    expect(sb.output()).toMatch(/saved in \S+state\.json \(a new data file: the\s+sandbox starts empty\)/);
    expect(sb.output()).toMatch(/merchant key: mk_sandbox_demo/);
    expect(sb.output()).toMatch(/site id:\s+1/);
    expect(sb.output()).toMatch(/API key:\s+ak_sandbox_demo/);
    // the client is not what is tested: in-process
    const dep = await mpay(['deposit', ...customerArgs({ reference: 'proc-1' }), '--json'], {
      env: cliEnv({ url }, tempDir()),
    });
    expect(dep.code).toBe(0);
    sb.child.kill('SIGINT');
    expect(await sb.exited).toBe(0);
    expect(sb.errors()).toMatch(/SIGINT: stopping/);
    expect(readdirSync(dirname(data)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // A second run on the same file knows the transaction and its state: its reference is taken.
    const again = startSandboxProcess(['--data', data], onTestFinished);
    const url2 = await again.url;
    expect(again.output()).toMatch(/saved in \S+state\.json \(1 transaction read\s+back\)/);
    const saved = await (await fetch(`${url2}/_sandbox/transactions`)).json();
    expect(saved.map((t: { reference: string; status: string }) => `${t.reference}:${t.status}`)).toEqual([
      'proc-1:pending',
    ]);
    const dup = await mpay(
      ['deposit', 'initiate', ...customerArgs({ gateway: '', reference: 'proc-1' }), '--json'],
      {
        env: cliEnv({ url: url2 }, tempDir()),
      },
    );
    expect(dup.code).toBe(4);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  },
);

it.concurrent(
  "its Try line logs in when pasted, with no secret on mpay's command line; on every interface it warns and offers the loopback URL",
  slow,
  async ({ onTestFinished }) => {
    const sb = startSandboxProcess(['--host', '0.0.0.0'], onTestFinished);
    try {
      await sb.url;
      expect(sb.errors()).toMatch(
        /^mpay: warning: listening on every interface of this machine \(0\.0\.0\.0\): anyone who can reach it can use the demo merchant's credentials; on this machine use http:\/\/127\.0\.0\.1:\d+$/m,
      );
      const line = printedCommand(sb.output(), 'Try: ');
      const argv = line.slice(line.indexOf(' mpay ') + 1);
      expect(argv).not.toContain('mk_sandbox_demo');
      expect(argv).not.toContain('ak_sandbox_demo');
      expect(argv).toMatch(/--base-url http:\/\/127\.0\.0\.1:\d+ /);
      const cfg = tempDir();
      const r = await runPrinted(line, { MPAY_CONFIG_DIR: cfg });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).toMatch(/Logged in: profile default, sandbox at http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      sb.child.kill('SIGINT');
      await sb.exited;
    }
  },
);

it.concurrent(
  '--host 0 (every interface, spelled short) warns too; an interface address warns that mpay will not reach it over http',
  slow,
  async ({ onTestFinished }) => {
    const zero = startSandboxProcess(['--host', '0'], onTestFinished);
    try {
      await zero.url;
      expect(zero.errors()).toMatch(/^mpay: warning: listening on every interface of this machine \(0\)/m);
      expect(zero.output()).toMatch(/--base-url http:\/\/127\.0\.0\.1:\d+ /);
    } finally {
      zero.child.kill('SIGINT');
      await zero.exited;
    }
  },
);

it.concurrent('--json prints the sandbox facts as one JSON line', slow, async ({ onTestFinished }) => {
  const sb = sandboxProcess(['--json'], onTestFinished);
  const line = await new Promise<string>((resolve) => sb.stdout.once('data', (d) => resolve(String(d))));
  expect(JSON.parse(line)).toMatchObject({
    merchant_key: 'mk_sandbox_demo',
    site_id: '1',
    api_key: 'ak_sandbox_demo',
    otp: '123456',
  });
  sb.kill('SIGINT');
  await new Promise((r) => sb.on('close', r));
});

it.concurrent('shell completion is wired in, and the bash completion knows the commands', slow, async () => {
  const home = tempDir();
  const r = await run(['autocomplete', 'bash'], { env: { MPAY_CONFIG_DIR: tempDir(), HOME: home } });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/mpay autocomplete script bash/);
  const script = await run(['autocomplete', 'script', 'bash'], {
    env: { MPAY_CONFIG_DIR: tempDir(), HOME: home },
  });
  expect(script.stdout).toMatch(/MPAY_AC_BASH_SETUP_PATH=/);
  const functions = readFileSync(
    join(home, '.cache', 'mpay', 'autocomplete', 'functions', 'bash', 'mpay.bash'),
    'utf8',
  );
  for (const id of ['deposit', 'withdraw', 'currencies', 'doctor', 'history'])
    expect(functions).toContain(id);
});

it.concurrent(
  'refuses a second sandbox on a --data file another one holds (exit 11, naming it; what is committed unchanged), and takes over the lock of one killed with -9',
  slow,
  async ({ onTestFinished }) => {
    const data = join(tempDir(), 'state.json');
    const first = startSandboxProcess(['--data', data], onTestFinished);
    const url = await first.url;
    // no file yet: a new one too
    expect(first.output()).toMatch(/\(a new data file: the\s+sandbox starts empty\)/);
    const dep = await mpay(['deposit', ...customerArgs({ reference: 'lock-1' }), '--json'], {
      env: cliEnv({ url }, tempDir()),
    });
    expect(dep.code).toBe(0);
    // what is committed once the deposit's run has ended (its answers came after their commits)
    const rows = (list: { reference: string; status: string; hash_token: string }[]) =>
      list.map((t) => [t.reference, t.status, t.hash_token]);
    const before = rows(await (await fetch(`${url}/_sandbox/transactions`)).json());
    expect(before.map(([reference, status]) => [reference, status])).toEqual([['lock-1', 'pending']]);
    const second = startSandboxProcess(['--data', data], onTestFinished);
    second.url.catch(() => {}); // it never prints one: its exit is what is awaited
    // a second that started anyway would serve until killed: its URL ends the race, not a timeout
    expect(await Promise.race([second.exited, second.url.then(() => 'started')])).toBe(11);
    expect(second.output()).not.toMatch(/listening on/);
    expect(second.errors()).toContain(data);
    expect(second.errors()).toContain(`pid ${first.child.pid}`);
    // killed with -9, the first leaves its lock behind: what the file holds, read through SQLite, is what
    // the first had committed; the next start takes the file over and has the transaction
    first.child.kill('SIGKILL');
    await first.exited;
    const db = new Database(data);
    const committed = db.prepare('SELECT reference, status, hash_token FROM tx ORDER BY id').raw(true).all();
    db.exec('PRAGMA journal_mode = DELETE');
    db.close();
    expect(committed).toEqual(before);
    const third = startSandboxProcess(['--data', data], onTestFinished);
    const url3 = await third.url;
    const saved = await (await fetch(`${url3}/_sandbox/transactions`)).json();
    expect(saved.map((t: { reference: string }) => t.reference)).toEqual(['lock-1']);
    third.child.kill('SIGINT');
    expect(await third.exited).toBe(0);
    expect(readdirSync(dirname(data)).filter((f) => f.endsWith('.lock'))).toEqual([]);
  },
);
