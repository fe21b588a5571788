// The end-to-end set that every way of running mpay passes, as a user runs it:
//   - the single executable (npm run build:exe), copied alone into a folder with no node_modules and
//     run with a PATH that holds no node;
//   - bin/run.js under Node 22 and Node 24, from the npm registry's `node` package
//     (scripts/node-runtimes.js).
// Each runs its own sandbox (`mpay sandbox`), the README's demo, a withdrawal with its one-time code,
// --json read back, --help, and the exit codes a script sees. The executable also shows that what was
// true when its snapshot was built (the environment, the working folder, the time) is not what a run
// sees: test/exe.ts builds it with planted values.
// The three runners, and the tests of each, run at once (each test has its own config folder and its own
// references; each runner its own sandbox): most of a test is the wait for its mpay processes.
import { spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exeRuntime, installRuntimes, runtimes as versions } from '../scripts/node-runtimes.js';
import {
  cliEnv,
  customerArgs,
  firstJsonLine,
  root,
  run,
  tempDir,
  type RunOptions,
  allJournalEvents,
  sandboxProcess,
} from './helpers.js';
import { selfSignedCertificate } from '../src/sandbox/self-signed.js';
import { buildTime, builtExe } from './exe.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';

const exe = await builtExe();
const testStart = Date.now();

interface Runner {
  name: string;
  /** the Node major the runner reports in --version */
  major: number;
  command: string[];
  env: Record<string, string>;
  cwd: string;
}

function exeRunner(): Runner {
  // A folder of its own with nothing but the executable; PATH names only that folder.
  const dir = tempDir('mpay-exe-');
  mkdirSync(join(dir, 'bin'));
  const file = join(dir, 'bin', 'mpay');
  copyFileSync(exe, file);
  return {
    name: 'the executable',
    major: Number(exeRuntime),
    command: [file],
    env: { PATH: join(dir, 'bin') },
    cwd: dir,
  };
}

function nodeRunner(major: string, node: string): Runner {
  return {
    name: `bin/run.js on Node ${major}`,
    major: Number(major),
    command: [node, join(root, 'bin', 'run.js')],
    env: {},
    cwd: tempDir('mpay-node-'),
  };
}

const runtimes = installRuntimes();
const runners: Runner[] = [
  exeRunner(),
  ...Object.entries(runtimes).map(([major, node]) => nodeRunner(major, node)),
];

/** `mpay sandbox --port 0 --json` (and `args`) started by the runner itself; resolves with its URL and facts. */
function startSandbox(
  r: Runner,
  args: string[] = [],
): Promise<{ url: string; facts: Record<string, unknown>; stop: () => void }> {
  const child = spawn(r.command[0]!, [...r.command.slice(1), 'sandbox', '--port', '0', '--json', ...args], {
    env: { ...r.env, MPAY_CONFIG_DIR: tempDir() },
    cwd: r.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return firstJsonLine(child, () => err).then((facts) => ({
    url: facts.url as string,
    facts,
    stop: () => child.kill(),
  }));
}

// Each test waits on its own processes, beside the others': its deadline and its processes' allow for
// a machine whose cores are busy with other work too.
const slow = { timeout: 120_000 };
const processMs = 100_000;

/** mpay as the runner runs it, in its folder and environment */
const runWith =
  (r: Runner) =>
  (args: string[], opts: RunOptions = {}) =>
    run(args, {
      command: r.command,
      cwd: r.cwd,
      timeoutMs: processMs,
      ...opts,
      env: { ...r.env, ...opts.env },
    });

describe.concurrent.each(runners)('$name', slow, (r) => {
  let sb: { url: string; stop: () => void };
  const mpay = runWith(r);

  beforeAll(async () => {
    sb = await startSandbox(r);
  });
  afterAll(() => sb?.stop());

  it('--version names mpay and the Node inside', async () => {
    const v = await mpay(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(
      new RegExp(`^mpay-cli/\\d+\\.\\d+\\.\\d+ ${process.platform}-${process.arch} node-v${r.major}\\.`),
    );
  });

  it('--help lists the commands by group, and a command its flags', async () => {
    const root_ = await mpay(['--help']);
    expect(root_.code).toBe(0);
    expect(root_.stdout).toMatch(/GETTING STARTED[\s\S]+PAYMENTS[\s\S]+withdraw/);
    const cmd = await mpay(['withdraw', '--help']);
    expect(cmd.stdout).toContain('--otp');
  });

  it("the README's demo runs a deposit and a withdrawal", async () => {
    const d = await mpay(['demo'], { env: { MPAY_CONFIG_DIR: tempDir() } });
    expect(d.code, d.stderr).toBe(0);
    expect(`${d.stdout}${d.stderr}`.match(/settled/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('a withdrawal with its one-time code, read back as JSON', async () => {
    const env = cliEnv(sb, tempDir());
    const started = await mpay(['withdraw', ...customerArgs({ reference: `p-${r.major}-1` }), '--json'], {
      env,
    });
    expect(started.code, started.stderr).toBe(0);
    expect(started.json()).toMatchObject({ next: 'otp', status: 'initiated', reference: `p-${r.major}-1` });
    const done = await mpay(['withdraw', '--resume', `p-${r.major}-1`, '--otp-stdin', '--json'], {
      env,
      input: '123456\n',
    });
    expect(done.code, done.stderr).toBe(0);
    expect(done.json()).toMatchObject({ status: 'pending', hash_token: started.json().hash_token });
    const history = await mpay(['history', '--json', '--query', '[].reference'], { env });
    expect(history.json()).toEqual([`p-${r.major}-1`]);
  });

  it('--json output parses, and --query filters it', async () => {
    const env = cliEnv(sb, tempDir());
    const all = await mpay(['countries', '--json'], { env });
    expect(all.code).toBe(0);
    expect(all.json().map((c: { code: string }) => c.code)).toContain('GH');
    const codes = await mpay(['countries', '--query', '[].code'], { env });
    expect(codes.json()).toEqual(all.json().map((c: { code: string }) => c.code));
  });

  it('exits with the documented codes', async () => {
    const env = cliEnv(sb, tempDir());
    expect((await mpay(['countries', '--bogus'], { env })).code).toBe(2);
    expect((await mpay(['balances'], { env: { ...env, MPAY_MERCHANT_KEY: 'mk_unknown' } })).code).toBe(3);
    const refused = await mpay(['countries', '--json'], {
      env: { ...env, MPAY_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(refused.code).toBe(8);
    expect(JSON.parse(refused.stdout).error.kind).toBe('network');
  });
});

describe.concurrent('the executable and its snapshot', slow, () => {
  const r = runners[0]!;
  let sb: { url: string; stop: () => void };
  beforeAll(async () => {
    sb = await startSandbox(r);
  });
  afterAll(() => sb?.stop());
  const mpay = runWith(r);

  it('runs where no node can be found', async () => {
    const which = spawnSync('/bin/sh', ['-c', 'command -v node'], { env: r.env, encoding: 'utf8' });
    expect(which.stdout).toBe('');
    expect(existsSync(join(r.cwd, 'node_modules'))).toBe(false);
    // the executable itself, in that environment: a request to the sandbox and back
    const env = cliEnv(sb, tempDir());
    const out = await mpay(['countries', '--json', '--query', "[?code=='GH'].code"], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(out.json()).toEqual(['GH']);
    expect(r.name).toBe('the executable');
  });

  it("holds nothing of the build's environment or working folder", () => {
    const file = readFileSync(exe);
    for (const planted of [buildTime.host, buildTime.cwd])
      expect(file.indexOf(Buffer.from(planted)), planted).toBe(-1);
  });

  it("reads the run's environment, not the build's", async () => {
    // The build had MPAY_BASE_URL pointing at a host that does not exist.
    const env = cliEnv(sb, tempDir());
    const ok = await mpay(['countries', '--json'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    const unset = await mpay(['countries', '--json', '--timeout', '2'], {
      env: { ...env, MPAY_BASE_URL: undefined, MPAY_ENV: 'stage' },
    });
    expect(unset.stdout + unset.stderr).not.toContain(buildTime.host);
  });

  it("uses the run's working folder and terminal width, not the build's", async () => {
    const env = cliEnv(sb, tempDir());
    const t = await mpay(['countries', '--json', '--trace', 'run.har'], { env });
    expect(t.code).toBe(0);
    expect(existsSync(join(r.cwd, 'run.har'))).toBe(true);
    expect(existsSync(join(buildTime.cwd, 'run.har'))).toBe(false);
    // The build had OCLIF_COLUMNS=40: help is laid out as bin/run.js lays it out for the run's own width.
    await Promise.all(
      [undefined, '60', '120'].map(async (columns) => {
        const env = { OCLIF_COLUMNS: columns };
        const [help, own] = await Promise.all([
          mpay(['deposit', '--help'], { env }),
          run(['deposit', '--help'], { env, timeoutMs: processMs }),
        ]);
        expect(help.stdout, `OCLIF_COLUMNS=${columns}`).toBe(own.stdout);
      }),
    );
  });

  it('tells the time and draws random numbers at run time', async () => {
    const env = cliEnv(sb, tempDir());
    const refs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const w = await mpay(['withdraw', ...customerArgs(), '--json'], { env });
      expect(w.code, w.stderr).toBe(0);
      refs.push(w.json().reference);
    }
    expect(refs[0]).not.toBe(refs[1]);
    const events = allJournalEvents(env.MPAY_CONFIG_DIR);
    expect(events.length).toBeGreaterThanOrEqual(4);
    for (const e of events) expect(Date.parse(e.at)).toBeGreaterThanOrEqual(testStart - 1000);
    // ...and the build happened before this test file started.
    expect(statSync(exe).mtimeMs).toBeLessThan(testStart);
  });

  // script(1), from util-linux, gives the run a pseudo-terminal.
  const hasScript = spawnSync('sh', ['-c', 'command -v script']).status === 0;
  it.skipIf(!hasScript)('colours help on a terminal, as bin/run.js does, and not in a pipe', () => {
    const onTty = spawnSync('script', ['-qc', `${r.command[0]} countries --help`, '/dev/null'], {
      env: { PATH: `${r.env.PATH}:/usr/bin:/bin`, TERM: 'xterm' },
      encoding: 'utf8',
    });
    expect(onTty.stdout).toContain('\u001b[1mUSAGE');
    const piped = spawnSync(r.command[0]!, ['countries', '--help'], { env: r.env, encoding: 'utf8' });
    expect(piped.stdout).toContain('USAGE');
    expect(piped.stdout).not.toContain('\u001b[');
  });

  // The packages kept outside the snapshot, as assets compiled on first use (scripts/build-exe.js).
  it('an http:// request loads no TLS; an https:// one goes only to a name its certificate holds', async ({
    onTestFinished,
  }) => {
    // Node's own modules the run loaded, from a preload (NODE_OPTIONS, which the executable reads too)
    const list = join(tempDir(), 'builtins.txt');
    const preload = join(root, 'test', 'fixtures', 'loaded-builtins.cjs');
    const plain = await mpay(['countries', '--json'], {
      env: {
        MPAY_CONFIG_DIR: tempDir(),
        MPAY_BASE_URL: sb.url,
        NODE_OPTIONS: `--require ${preload}`,
        MPAY_BUILTINS_FILE: list,
      },
    });
    expect(plain.code, plain.stderr).toBe(0);
    const builtins = readFileSync(list, 'utf8').split('\n');
    expect(builtins).toContain('http');
    // got reads node:tls's checkServerIdentity for every request: the executable hands it out unloaded
    // (scripts/build-exe.js, calledLater), so that a request to http:// never loads TLS and its certificates
    expect(builtins.filter((b) => /tls/.test(b))).toEqual([]);
    // https: a sandbox whose certificate names localhost alone, trusted through NODE_EXTRA_CA_CERTS
    const dir = tempDir();
    const made = await selfSignedCertificate(['localhost']);
    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    writeFileSync(cert, made.cert);
    writeFileSync(key, made.key);
    const child = sandboxProcess(['--json', '--tls-cert', cert, '--tls-key', key], onTestFinished);
    const port = new URL((await firstJsonLine(child)).url).port;
    const at = (host: string) =>
      mpay(['countries', '--json'], {
        env: {
          MPAY_CONFIG_DIR: tempDir(),
          MPAY_BASE_URL: `https://${host}:${port}`,
          NODE_EXTRA_CA_CERTS: cert,
        },
      });
    const named = await at('localhost');
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)[0]).toMatchObject({ code: 'GH' });
    // the same server by an address its certificate does not name: refused by the check of the name
    const unnamed = await at('127.0.0.1');
    expect(unnamed.code, unnamed.stderr).toBe(8);
    expect(unnamed.stderr).toContain('TLS verification failed for 127.0.0.1');
    expect(unnamed.stderr).toMatch(/IP: 127\.0\.0\.1 is not in the cert's list/);
  });

  it('loads each package kept outside the snapshot: conf, tar, csv-parse, jmespath, fastify', async () => {
    const dir = tempDir();
    const env = { MPAY_CONFIG_DIR: dir, MPAY_BASE_URL: sb.url }; // fastify: the sandbox serves sb.url
    const login = await mpay(
      ['login', '--merchant-key-stdin', '--site-id', '1', '--api-key', 'ak_sandbox_demo', '--env', 'sandbox'],
      { env, input: 'mk_sandbox_demo\n' },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toMatchObject({
      currentProfile: 'default',
      profiles: { default: { siteId: '1' } },
    });
    const out = join(tempDir(), 'bundle.tar.gz');
    const bundle = await mpay(['support', 'bundle', '--out', out, '--json'], { env });
    expect(bundle.code, bundle.stderr).toBe(0);
    const unpacked = tempDir();
    spawnSync('tar', ['xzf', out, '-C', unpacked]);
    expect(JSON.parse(readFileSync(join(unpacked, 'versions.json'), 'utf8'))).toMatchObject({
      packaging: 'single executable',
      node: `v${versions[exeRuntime]}`,
    });
    const csv = join(tempDir(), 'rows.csv');
    writeFileSync(
      csv,
      'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,5,Ama,+233201234567,ama@example.com,1\n',
    );
    const batch = await mpay(['deposit', 'batch', csv, '--json', '--query', 'outcome'], { env });
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stdout.trim()).toBe('"done"');
  });

  // --tls: the certificate made by @peculiar/x509 (in the executable, an asset outside its snapshot,
  // loaded only then), which mpay trusts through the line the sandbox prints, and only through it
  it('serves --tls with a certificate of its own making, which NODE_EXTRA_CA_CERTS trusts', async () => {
    const dir = tempDir();
    const certFile = join(dir, 'sandbox.log.tls-cert.pem');
    const tls = await startSandbox(r, ['--tls', '--data', join(dir, 'sandbox.log')]);
    try {
      expect(tls.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(tls.facts.settings).toMatchObject({
        tls_certificate: certFile,
        tls_fingerprint: new X509Certificate(readFileSync(certFile)).fingerprint256,
      });
      const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_BASE_URL: tls.url };
      const refused = await mpay(['countries', '--json'], { env });
      expect(refused.code, refused.stderr).toBe(8);
      const trusted = await mpay(['countries', '--json'], { env: { ...env, NODE_EXTRA_CA_CERTS: certFile } });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(JSON.parse(trusted.stdout)).toContainEqual(expect.objectContaining({ code: 'GH' }));
    } finally {
      tls.stop();
    }
  });

  it.skipIf(without('tmux'))(
    'prompts on a terminal (inquirer) and draws the wallet QR code (qrcode-terminal)',
    async () => {
      const t = new Tmux('exe');
      try {
        t.start(
          ['deposit', '--currency', 'USD', '--country', 'US'],
          { ...cliEnv(sb, tempDir()), PATH: r.env.PATH! },
          r.command,
        );
        await t.dialogue([
          [/Amount in USD/, '100'],
          [/Customer first name/, 'Ama'],
          [/Customer last name/, ''],
          [/Customer phone/, '+15551234567'],
          [/Customer e-mail/, 'ama@example.com'],
          [/Reference/, 'exe-pty-1'],
          [/❯ 5\s+USDT \(TRC20\)/, ['Enter']],
          [/Phone number for the payment/, ''],
          [/Also send the confirmation/, ''],
        ]);
        const screen = await t.waitFor(/EXIT=\d+/);
        expect(screen).toMatch(/EXIT=0/);
        expect(screen).toMatch(/[▄▀█]{10,}/);
      } finally {
        t.kill();
      }
    },
  );
});
