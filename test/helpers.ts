// Test helpers: a real sandbox on an ephemeral loopback port, and the real bin/run.js in a child process
// with a temporary config folder. Nothing here mocks the network.
import { Journal } from '../src/journal/journal.js';
import { loadSqlite, openDatabase } from '../src/journal/database.js';
import type { JournalEvent } from '../src/journal/records.js';
import { execFileSync, spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../src/sandbox/server.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { Client } from '../src/api/client.js';
import type { ClientOptions } from '../src/api/sender.js';
import { runTickets } from '../src/api/ticket.js';
import { MoneyGate, type GateRun } from '../src/flows/gate/money-gate.js';
import { memoryTokens } from '../src/api/credentials.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const bin = join(root, 'bin', 'run.js');

export function tempDir(prefix = 'mpay-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A file of the test's own, in a folder of its own: a batch's rows, a HAR, codes. */
export function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

/** One HAR file `name` of the calls of `traces` whose URL `keep` takes, in their order: one trace of them all. */
export function mergedHar(
  name: string,
  traces: string[],
  keep: (url: string) => boolean = () => true,
): string {
  const hars = traces.map(
    (f) => JSON.parse(readFileSync(f, 'utf8')) as { log: { entries: { request: { url: string } }[] } },
  );
  const entries = hars.flatMap((h) => h.log.entries.filter((e) => keep(e.request.url)));
  return file(name, JSON.stringify({ log: { ...hars[0]!.log, entries } }));
}

/**
 * The seed of every fault a test's sandbox draws at random: fixed, so that a failure draws the same faults
 * again; MPAY_TEST_SEED=N tries others.
 */
export const faultSeed = Number(process.env.MPAY_TEST_SEED ?? 20261122);

export async function sandbox(opts: SandboxOptions = {}): Promise<RunningSandbox & { logs: string[] }> {
  const logs: string[] = [];
  const sb = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    log: (l) => logs.push(l),
    faultSeed,
    ...opts,
  });
  return Object.assign(sb, { logs });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The records of NDJSON text (a batch's --json stdout, a journal), a line each. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function ndjson<T = any>(text: string): T[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
}

// The journal's SQLite, loaded as the Factory loads it before a journal is opened.
await loadSqlite();

/**
 * The events of a profile's and environment's journal in a config folder's database, oldest first, as
 * mpay wrote them (nothing when there is no journal yet).
 */
export function journalEvents(cfg: string, profile = 'default', env = 'sandbox'): JournalEvent[] {
  return new Journal(cfg, profile, env).events();
}

/** A journal's events as JSON lines, as the journal of JSON lines held them (for matching text). */
export function journalText(cfg: string, profile = 'default', env = 'sandbox'): string {
  return journalEvents(cfg, profile, env)
    .map((e) => `${JSON.stringify(e)}\n`)
    .join('');
}

/** Every event of every journal in a config folder's database, oldest first: none when nothing was journaled. */
export function allJournalEvents(cfg: string): JournalEvent[] {
  const dir = join(cfg, 'journal');
  const db = openDatabase(dir, join(dir, 'journal.db'), { create: false });
  return (db?.prepare('SELECT event FROM events ORDER BY id').all() ?? []).map(
    (r) => JSON.parse(String(r.event)) as JournalEvent,
  );
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  /** run as an unprivileged user (nobody) when the tests run as root, who writes through any file mode */
  unprivileged?: boolean;
  /** what runs mpay, instead of this Node with bin/run.js: the executable, or another Node with bin/run.js */
  command?: string[];
  cwd?: string;
}

/** What `fn` threw (undefined: it returned), for a test that looks at the error itself. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

export const isRoot = process.getuid?.() === 0;
export const nobody = 65534;

/** The command line that runs `argv` as nobody (no groups): only for a test running as root. */
export function asNobody(argv: string[]): [string, string[]] {
  return ['setpriv', [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', ...argv]];
}

/**
 * The bin/run.js nobody can run. When the checkout lives in a folder only its owner can enter (root's
 * home, a `mktemp -d` folder), nobody cannot reach it, so the install a run needs (bin/, dist/, the oclif
 * manifest, package.json and node_modules, whose packages the bundle loads when used) is copied, once a
 * test worker, to a folder of its own that anyone may enter: hard links where the file system allows, a
 * copy where it does not.
 */
let nobodyBin: string | undefined;
export function binForNobody(): string {
  if (nobodyBin) return nobodyBin;
  const [cmd, argv] = asNobody([process.execPath, '-e', 'require("fs").accessSync(process.argv[1], 4)', bin]);
  if (spawnSync(cmd, argv, { stdio: 'ignore' }).status === 0) return (nobodyBin = bin);
  const dir = tempDir('mpay-install-');
  chmodSync(dir, 0o755);
  const parts = ['bin', 'dist', 'node_modules', 'package.json', 'oclif.manifest.json'].map((p) =>
    join(root, p),
  );
  try {
    execFileSync('cp', ['-al', ...parts, dir], { stdio: 'ignore' });
  } catch {
    execFileSync('cp', ['-a', ...parts, dir], { stdio: 'ignore' });
  }
  return (nobodyBin = join(dir, 'bin', 'run.js'));
}

/** Gives a folder (and what is in it) to the user that `unprivileged` runs as. */
export function giveToUnprivileged(dir: string): void {
  if (isRoot) execFileSync('chown', ['-R', `${nobody}:${nobody}`, dir]);
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl for one test run. */
export function selfSignedCert(): { key: string; cert: string; certFile: string } {
  const dir = tempDir();
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
    ].concat(['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']),
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

/**
 * The variables that lead to the user's own keyring (its D-Bus session): never passed on to a test's mpay,
 * unless the test gives them (test/keyring.process.test.ts gives a private one).
 */
const userKeyring = ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'];

/**
 * Where a spawned mpay keeps what it writes outside its config folder (oclif's completion cache, the
 * executable's native addon): a folder of the test run's, whatever HOME and XDG_* hold outside, unless
 * the test names its own.
 */
let ownHome: string | undefined;
function homeVariables(given?: string): Record<string, string> {
  const home = given ?? (ownHome ??= tempDir('mpay-home-'));
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
}

/** The environment a script would have: a private config folder, credentials of the demo merchant. */
export function cliEnv(
  sb: { url: string } | undefined,
  configDir: string,
  extra: Record<string, string | undefined> = {},
) {
  return {
    MPAY_CONFIG_DIR: configDir,
    ...(sb ? { MPAY_BASE_URL: sb.url } : {}),
    MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
    MPAY_SITE_ID: demoMerchant.siteId,
    MPAY_API_KEY: demoMerchant.apiKey,
    MPAY_RETRY_BASE_MS: '20',
    ...extra,
  };
}

export function run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...homeVariables(opts.env?.HOME), ...opts.env })) {
      // COLUMNS: a table in a pipe fits an exported COLUMNS; a test gives it when it means it
      if (
        v !== undefined &&
        !k.startsWith('MPAY_') &&
        !['CI', 'COLUMNS'].includes(k) &&
        !userKeyring.includes(k)
      )
        env[k] = v;
    }
    for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
    env.NO_COLOR = '1';
    const [cmd, argv] =
      opts.unprivileged && isRoot
        ? asNobody([process.execPath, binForNobody(), ...args])
        : opts.command
          ? [opts.command[0]!, [...opts.command.slice(1), ...args]]
          : [process.execPath, [bin, ...args]];
    const child = spawn(cmd, argv, { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export const noStack = (s: string) => !/\n\s+at .+:\d+:\d+\)?/.test(s);

/** The customer flags of a GHS deposit or withdraw; an empty value leaves a flag out. */
export function customerArgs(over: Record<string, string> = {}): string[] {
  const f: Record<string, string> = {
    currency: 'GHS',
    country: 'GH',
    amount: '10',
    'first-name': 'Ama',
    phone: '+233201234567',
    email: 'ama@example.com',
    gateway: '1',
    ...over,
  };
  return Object.entries(f)
    .filter(([, v]) => v !== '')
    .flatMap(([k, v]) => [`--${k}`, v]);
}

/**
 * The tickets of the in-process tests' clients and gates (api/ticket.ts): a client made here sends
 * money only with a ticket of a gate made by testGate, as a Factory's client does with its own gate's.
 */
const testTickets = runTickets();

/** A money gate for an in-process test: an environment's name (live or not) and how it may ask. */
export function testGate(env: string, run: Omit<GateRun, 'issue'> = {}): MoneyGate {
  return new MoneyGate(env, { ...run, issue: testTickets.issue });
}

/** A client of the demo merchant on a sandbox, its token kept in memory: for in-process flow tests. */
export function demoClient(url: string, more: Pick<ClientOptions, 'pacer'> = {}): Client {
  return new Client({
    ...more,
    verifyTicket: testTickets.verify,
    baseUrl: url,
    credentials: {
      merchantKey: demoMerchant.merchantKey,
      siteId: demoMerchant.siteId,
      apiKey: demoMerchant.apiKey,
    },
    tokens: memoryTokens(),
  });
}

/** A bearer token straight from the API, for tests that set the scene without the CLI. */
export async function apiToken(url: string): Promise<string> {
  const res = await fetch(`${url}/restapi/v1/auth/merchant/token/generate`, {
    method: 'POST',
    body: new URLSearchParams({ merchant_key: demoMerchant.merchantKey }),
  });
  return (await res.json()).data.token;
}

/** An initiate straight to the API (deposit unless told), with the demo merchant's credentials. */
export function apiInitiate(
  url: string,
  token: string,
  reference: string,
  kind: 'deposit' | 'withdraw' = 'deposit',
): Promise<Response> {
  return fetch(`${url}/restapi/v1/payments/${kind === 'deposit' ? 'initiate' : 'withdraw/initiate'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      merchant_key: demoMerchant.merchantKey,
      site_id: 1,
      api_key: demoMerchant.apiKey,
      currency_code: 'GHS',
      country_code: 'GH',
      customer_first_name: 'Ama',
      customer_phone: '+233201234567',
      customer_email: 'ama@example.com',
      customer_transaction_id: reference,
      amount: '10',
    }),
  });
}

/** The sandbox's count of requests so far, per route ("POST /payments/initiate"), from its own route. */
export async function requestCounts(sb: { url: string }): Promise<Record<string, number>> {
  return (await (await fetch(`${sb.url}/_sandbox/requests`)).json()) as Record<string, number>;
}

/** The sandbox's count of requests so far to one route. */
export async function requestCount(sb: { url: string }, route: string): Promise<number> {
  return (await requestCounts(sb))[route] ?? 0;
}

/** Changes a running sandbox's faults through its own route, e.g. { rate: 0 } to switch them off. */
export function setFaults(
  sb: { url: string },
  body: { faults?: string[]; rate?: number; faultPaths?: string[] },
): Promise<Response> {
  return fetch(`${sb.url}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

let shimDir: string | undefined;

/**
 * Runs a command line that mpay printed for a person to paste, literally, through /bin/sh (which splits
 * and unquotes it as a person's shell would), with `mpay` on PATH as bin/run.js and the given variables:
 * point them at another server to see that the line carries its own.
 */
export function runPrinted(
  line: string,
  env: Record<string, string | undefined>,
  shell = '/bin/sh',
): Promise<RunResult> {
  return run([], {
    command: [shell, '-c', line],
    env: { ...env, PATH: mpayOnPath() },
  });
}

/** A PATH on which `mpay` is bin/run.js on this Node, for what a person pastes into a shell. */
export function mpayOnPath(): string {
  if (!shimDir) {
    shimDir = tempDir('mpay-shim-');
    writeFileSync(join(shimDir, 'mpay'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`, {
      mode: 0o755,
    });
  }
  return `${shimDir}:${process.env.PATH ?? ''}`;
}

/**
 * The command a person selects on a terminal after `label`: from its `mpay` to the end of the line, and
 * the lines after while one ends in ` \` (on a terminal a command is shown without backticks).
 */
export function commandOnScreen(text: string, label: string): string {
  const at = text.indexOf(label);
  if (at < 0) throw new Error(`no "${label}" in:\n${text}`);
  const from = text.slice(at);
  const lines = from.slice(from.indexOf('mpay ')).split('\n');
  const out = [lines[0]!];
  for (let i = 1; i < lines.length && / \\$/.test(out.at(-1)!); i++) out.push(lines[i]!);
  return out.join('\n');
}

/** `mpay login` of a profile on a sandbox, unverified: the arguments, without `mpay`. */
export function loginArgs(profile: string, baseUrl: string, ...extra: string[]): string[] {
  return [
    'login',
    '--profile',
    profile,
    '--env',
    'sandbox',
    '--base-url',
    baseUrl,
    '--site-id',
    '1',
    '--no-verify',
    ...extra,
  ];
}

/** The command a line of mpay's output offers after `label` (e.g. "Resume with: "), as printed. */
export function printedCommand(text: string, label: string): string {
  const line = text.split('\n').find((l) => l.includes(label));
  if (!line) throw new Error(`no "${label}" line in:\n${text}`);
  return line
    .slice(line.indexOf(label) + label.length)
    .replace(/\s{3}\(.*\)$/, '')
    .trim();
}

/**
 * bin/run.js in a child process, without CI, for a test that signals it or runs two at once: the child,
 * and its end with what it printed.
 */
export function spawnMpay(args: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: {
      ...process.env,
      DBUS_SESSION_BUS_ADDRESS: undefined,
      XDG_RUNTIME_DIR: undefined,
      COLUMNS: undefined,
      ...env,
      CI: undefined,
      NO_COLOR: '1',
    } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

/**
 * The first line a server prints on stdout (`mpay sandbox --json`, `mpay proxy --json`: its URL and
 * settings), parsed once whole; rejected, with its stderr so far, should the process end first.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function firstJsonLine(child: ChildProcess, stderr: () => string = () => ''): Promise<any> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      try {
        resolve(JSON.parse(line));
      } catch (err) {
        reject(err as Error);
      }
    });
    child.once('close', (code, signal) =>
      reject(
        new Error(
          `${child.spawnargs.join(' ')} ended (${code ?? signal}) before its first line: ${stderr()}`,
        ),
      ),
    );
  });
}

/**
 * A loopback server of the test's own (host 127.0.0.1 unless told: 127.0.0.2 is "another host"), for what
 * the sandbox never does: redirect, answer too much, always 429. `handle` gets each request once its body
 * was read, with the count of requests to its route so far; `hits` counts them by "METHOD /path".
 */
export async function loopbackServer(
  handle: (req: IncomingMessage, res: ServerResponse, n: number) => void,
  host = '127.0.0.1',
): Promise<{ url: string; hits: Map<string, number>; close: () => Promise<void> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const route = `${req.method} ${req.url}`;
    hits.set(route, (hits.get(route) ?? 0) + 1);
    req.resume();
    req.on('end', () => handle(req, res, hits.get(route)!));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    url: `http://${host}:${(server.address() as { port: number }).port}`,
    hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * Waits for `what` (as the failure names it) to come true, asking `check` every 20 ms; past the deadline,
 * fails with what was awaited, rather than going on as if it had come.
 */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  deadlineMs = 20_000,
): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`waited ${deadlineMs} ms for ${what}; it did not come`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A forwarder to `target` (a sandbox) that holds every request whose path contains `path` until
 * `release()`: a test knows, by the count held, which requests are in flight, and chooses when they end.
 */
export async function holdingProxy(
  target: string,
  path: string,
): Promise<{ url: string; held: () => number; release: () => void; close: () => Promise<void> }> {
  const waiting: (() => void)[] = [];
  let released = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (!released && req.url?.includes(path)) await new Promise<void>((r) => waiting.push(r));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
      try {
        const r = await fetch(`${target}${req.url}`, {
          method: req.method,
          headers,
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
        });
        const out: Record<string, string> = {};
        for (const k of ['content-type', 'retry-after']) if (r.headers.has(k)) out[k] = r.headers.get(k)!;
        res.writeHead(r.status, out);
        res.end(Buffer.from(await r.arrayBuffer()));
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    held: () => waiting.length,
    release: () => {
      released = true;
      for (const go of waiting.splice(0)) go();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** `mpay proxy` in a child process: its URL once it says it listens, and a stop that waits for its end. */
export async function proxyCli(
  upstream: string,
  report: string | undefined,
  env: Record<string, string> = {},
  extra: string[] = [],
) {
  const p = spawnMpay(
    [
      'proxy',
      '--upstream',
      upstream,
      '--port',
      '0',
      '--json',
      ...(report ? ['--report', report] : []),
      ...extra,
    ],
    env,
  );
  const url: string = (await firstJsonLine(p.child)).url;
  return {
    url,
    stop: async () => {
      p.child.kill('SIGTERM');
      return p.done;
    },
  };
}

/** Whether setpriv (util-linux) is here, to give a test's processes the parent-death signal: asked at the
 * first process a test starts, never at import (the quick tier imports this file and starts none). */
let setprivHere: boolean | undefined;
const setpriv = () =>
  (setprivHere ??=
    process.platform === 'linux' && spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0);

/**
 * `argv` prefixed so that the kernel kills the process should this worker end first (setpriv's
 * parent-death signal, on Linux; elsewhere `argv` as it is): a timed-out or killed run leaves none behind.
 */
export function diesWithWorker(argv: string[]): [string, string[]] {
  return setpriv() ? ['setpriv', ['--pdeathsig', 'KILL', ...argv]] : [argv[0]!, argv.slice(1)];
}

/**
 * `argv` in a process of its own that dies with this worker (diesWithWorker) and is killed (SIGKILL, its
 * end awaited) when the test that started it ends, however it ends: pass the test context's
 * onTestFinished, which is that test's own even when tests of a file run concurrently.
 */
export function ownProcess(
  argv: string[],
  opts: SpawnOptions,
  onTestFinished: (fn: () => Promise<void>) => void,
): ChildProcess {
  const [cmd, args] = diesWithWorker(argv);
  const child = spawn(cmd, args, opts);
  const closed = new Promise((r) => child.once('close', r));
  onTestFinished(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await closed;
  });
  return child;
}

/** `mpay sandbox --port 0` with `args` in a process of its own (ownProcess): its stdout and stderr piped. */
export function sandboxProcess(
  args: string[],
  onTestFinished: (fn: () => Promise<void>) => void,
): ChildProcess & { stdout: Readable; stderr: Readable } {
  return ownProcess(
    [process.execPath, bin, 'sandbox', '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
    onTestFinished,
  ) as ChildProcess & { stdout: Readable; stderr: Readable };
}

/**
 * A forwarder of the test's own in front of `target` (a real sandbox): each answer passes `rewrite`
 * (given "METHOD /path" and the body as text; it returns the body to hand on), and is recorded in
 * `answers`: a test learns what the server really said (a token it minted) and makes it say something
 * else (an answer about another transaction), over real HTTP both sides.
 */
export async function rewritingProxy(
  target: string,
  rewrite: (route: string, body: string) => string = (_r, b) => b,
): Promise<{
  url: string;
  answers: { route: string; body: string }[];
  /** what reached it: each request's path with its query, and its body */
  requests: { url: string; body: string }[];
  close: () => Promise<void>;
}> {
  const answers: { route: string; body: string }[] = [];
  const requests: { url: string; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      requests.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
      try {
        const r = await fetch(`${target}${req.url}`, {
          method: req.method,
          headers,
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
        });
        const route = `${req.method} ${new URL(req.url ?? '/', target).pathname}`;
        const body = rewrite(route, await r.text());
        answers.push({ route, body });
        const out: Record<string, string> = {};
        for (const k of ['content-type', 'retry-after']) if (r.headers.has(k)) out[k] = r.headers.get(k)!;
        res.writeHead(r.status, out);
        res.end(body);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    answers,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** A HAR entry of a POST with a JSON body (another tool's trace, secrets in clear), and its JSON answer. */
export function harEntry(
  path: string,
  body: Record<string, unknown>,
  answer: { status?: number; text?: string } = {},
): Record<string, unknown> {
  const text = answer.text ?? '{}';
  return {
    startedDateTime: '2026-11-22T10:00:00.000Z',
    time: 1,
    request: {
      method: 'POST',
      url: `https://api.example.com/restapi/v1/${path}`,
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: 'application/json' }],
      cookies: [],
      queryString: [],
      postData: { mimeType: 'application/json', text: JSON.stringify(body) },
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: answer.status ?? 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      content: { size: text.length, mimeType: 'application/json', text },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}

/** A HAR document of these entries. */
export const harOf = (entries: unknown[]): string =>
  JSON.stringify({ log: { version: '1.2', creator: { name: 'other', version: '1' }, entries } });
