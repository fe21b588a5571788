// `mpay sandbox` as a process: it prints its URL and the demo credentials, serves, keeps state in --data,
// and stops cleanly on Ctrl-C (SIGINT). The tests share nothing (each its own sandbox, port and folders)
// and run at once; the clients that only feed a sandbox run in-process.
import { expect, it, type TestContext } from 'vitest';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  cliEnv,
  sandboxProcess,
  customerArgs,
  printedCommand,
  run,
  runPrinted,
  sandbox,
  tempDir,
  journalText,
} from './helpers.js';
import { mpay } from './in-process.js';

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

it.concurrent('a --data path that is a link is refused before the sandbox starts', slow, async () => {
  const dir = tempDir();
  const planted = join(dir, 'planted.json');
  writeFileSync(planted, '{"transactions":[]}');
  const link = join(dir, 'state.json');
  symlinkSync(planted, link);
  const r = await mpay(['sandbox', '--port', '0', '--data', link]);
  expect(r.code, r.stderr).toBe(9);
  expect(r.stderr).toContain(`mpay: The sandbox data file ${link} is a link`);
});

it.concurrent('a snapshot beside --data that is a link is refused the same way', slow, async () => {
  const dir = tempDir();
  const planted = join(dir, 'planted.snapshot');
  writeFileSync(planted, 'MPAYSNAP');
  const data = join(dir, 'sandbox.log');
  symlinkSync(planted, `${data}.snapshot`);
  const r = await mpay(['sandbox', '--port', '0', '--data', data]);
  expect(r.code, r.stderr).toBe(9);
  expect(r.stderr).toContain(`mpay: The sandbox snapshot file ${data}.snapshot is a link`);
});

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

// In-process: what is filtered is the journal's, not the process's.
it.concurrent('history filters by kind, status, reference and date', slow, async () => {
  const dir = tempDir();
  const s = await sandbox();
  try {
    const env = cliEnv(s, dir);
    expect((await mpay(['deposit', ...customerArgs({ reference: 'h-dep' }), '--json'], { env })).code).toBe(
      0,
    );
    expect((await mpay(['withdraw', ...customerArgs({ reference: 'h-wd' }), '--json'], { env })).code).toBe(
      0,
    );
    const refs = async (...args: string[]) =>
      (await mpay(['history', ...args, '--json'], { env }))
        .json()
        .map((r: { reference: string }) => r.reference);
    expect(await refs()).toEqual(['h-wd', 'h-dep']);
    expect(await refs('--kind', 'withdraw')).toEqual(['h-wd']);
    expect(await refs('--status', 'pending')).toEqual(['h-dep']);
    expect(await refs('--status', 'initiated')).toEqual(['h-wd']);
    expect(await refs('--reference', 'h-dep')).toEqual(['h-dep']);
    expect(await refs('--since', '2999-01-01')).toEqual([]);
    expect(await refs('--until', new Date().toISOString().slice(0, 10))).toEqual(['h-wd', 'h-dep']);
    const csv = await mpay(['history', '--csv', '--columns', 'reference,kind,status'], { env });
    expect(csv.stdout.trim().split('\n')).toEqual([
      'reference,kind,status',
      'h-wd,withdraw,initiated',
      'h-dep,deposit,pending',
    ]);
    expect((await mpay(['history', '--since', 'yesterday'], { env })).code).toBe(2);
    // No secret in the journal.
    const journal = journalText(dir);
    expect(journal).not.toMatch(/mk_sandbox_demo|ak_sandbox_demo|"otp":|"token":|"api_key":|"merchant_key":/);
  } finally {
    await s.close();
  }
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
  'refuses a second sandbox on a --data file another one holds (exit 11, nothing written), and takes over the lock of one killed with -9',
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
    const before = readFileSync(data);
    const second = startSandboxProcess(['--data', data], onTestFinished);
    second.url.catch(() => {}); // it never prints one: its exit is what is awaited
    // a second that started anyway would serve until killed: its URL ends the race, not a timeout
    expect(await Promise.race([second.exited, second.url.then(() => 'started')])).toBe(11);
    expect(second.output()).not.toMatch(/listening on/);
    expect(second.errors()).toContain(data);
    expect(second.errors()).toContain(`pid ${first.child.pid}`);
    expect(readFileSync(data).equals(before)).toBe(true);
    // killed with -9, the first leaves its lock behind: the next start takes it over and has the transaction
    first.child.kill('SIGKILL');
    await first.exited;
    const third = startSandboxProcess(['--data', data], onTestFinished);
    const url3 = await third.url;
    const saved = await (await fetch(`${url3}/_sandbox/transactions`)).json();
    expect(saved.map((t: { reference: string }) => t.reference)).toEqual(['lock-1']);
    third.child.kill('SIGINT');
    expect(await third.exited).toBe(0);
    expect(readdirSync(dirname(data)).filter((f) => f.endsWith('.lock'))).toEqual([]);
  },
);
