// The operating system's keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux),
// through @napi-rs/keyring, for the merchant key, the API key and the bearer tokens (SECURITY.md).
//
// A keyring is trusted only once it has answered:
// - On Linux the library would fall back to the kernel keyring (lost at reboot, refused in containers) when
//   no Secret Service runs; mpay pins the Secret Service, so that a missing service is an error, never a
//   silent move to somewhere else.
// - The library talks to D-Bus synchronously, on this thread, and a session bus that accepts a connection
//   but never answers (a stopped dbus-daemon) blocks it for good: no timer of ours could ever run again,
//   and even the exit of the process waits for a thread stuck there. So before the library is let near the bus, mpay
//   opens the bus itself and waits, with a time limit, for the answer to its first handshake line. A Secret
//   Service that is on the bus but does not answer is the library's to time out (it gives up after 2 s).
// - `openKeyring(..., { probe: true })` (login, the move into the keyring, auth status, doctor) writes,
//   reads back and deletes a test entry before anything is stored.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { KeyringError } from '../common/errors.js';
import { importLazily } from '../lazy-import.js';

export interface Keyring {
  /** for people: "Secret Service", "macOS Keychain", "Windows Credential Manager" */
  readonly name: string;
  /** the entries of these accounts (undefined: none), read in one request */
  read(accounts: string[]): Promise<Map<string, string | undefined>>;
  set(account: string, value: string): Promise<void>;
  /** true when there was an entry to delete */
  delete(account: string): Promise<boolean>;
}

/**
 * Registers what to do should the run end while a keyring child runs (the IO's `interrupts.atExit`, handed
 * down by the Factory): the child is killed, whatever it is blocked on. Returns what unregisters it.
 */
export type AtExit = (cleanup: () => void) => () => void;

/** `off`: the person turned the keyring off (MPAY_KEYRING=off), which needs no warning. */
export type KeyringOpening =
  | {
      keyring: Keyring;
      /** the entries asked for at the opening (undefined: none) */
      prefetched?: Map<string, string | undefined>;
      /** why they could not be read */
      readError?: string;
    }
  | { unavailable: string; off?: boolean };

/** How long mpay waits for the session bus to answer (MPAY_KEYRING_TIMEOUT seconds, default 3). */
export function keyringTimeoutMs(environ: NodeJS.ProcessEnv): number | undefined {
  if (environ.MPAY_KEYRING_TIMEOUT === undefined) return 3000;
  const s = Number(environ.MPAY_KEYRING_TIMEOUT);
  return Number.isFinite(s) && s > 0 ? s * 1000 : undefined;
}

/** What a keyring request may take beyond the bus's time limit: the child's start, the library's own 2 s. */
export const keyringRequestSlackMs = 2000;

export function keyringName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

type Addon = typeof import('@napi-rs/keyring');

/** One operation of a request to the child. */
type Op =
  | { op: 'get'; account: string }
  | { op: 'set'; account: string; value: string }
  | { op: 'delete'; account: string };
type OpAnswer = { value?: string | null; deleted?: boolean } | { error: string };

/**
 * The keyring of one service name (mpay's, for one config folder), or why there is none. Never throws and
 * never waits longer than the time limit for the bus plus keyringRequestSlackMs: the library runs in a
 * child process (runKeyringRequest), killed at that deadline whatever it is blocked on.
 */
export async function openKeyring(
  service: string,
  environ: NodeJS.ProcessEnv,
  opts: { probe?: boolean; prefetch?: string[]; atExit?: AtExit } = {},
): Promise<KeyringOpening> {
  if (environ.MPAY_KEYRING === '0' || environ.MPAY_KEYRING === 'off')
    return { unavailable: 'turned off by MPAY_KEYRING=off', off: true };
  const timeoutMs = keyringTimeoutMs(environ);
  if (timeoutMs === undefined)
    return {
      unavailable: `MPAY_KEYRING_TIMEOUT=${JSON.stringify(environ.MPAY_KEYRING_TIMEOUT)} is not a number of seconds`,
    };
  if (process.platform !== 'darwin' && process.platform !== 'win32') {
    const bus = await sessionBusAnswers(environ, timeoutMs);
    if (bus) return { unavailable: bus };
  }
  const name = keyringName();
  const request = (ops: Op[]) =>
    keyringRequest(service, ops, environ, timeoutMs + keyringRequestSlackMs, name, opts.atExit);
  const answerOf = (a: OpAnswer | undefined, what: string): { value?: string | null; deleted?: boolean } => {
    if (!a) throw new KeyringError(`could not ${what} the ${name}: no answer`);
    if ('error' in a)
      throw new KeyringError(`could not ${what} the ${name}: ${a.error}`, {
        hint: 'Run `mpay auth status` to see where each secret is kept, or log in with --insecure-storage',
      });
    return a;
  };
  const keyring: Keyring = {
    name,
    read: async (accounts) => {
      const answers = await request(accounts.map((account) => ({ op: 'get', account })));
      return new Map(accounts.map((a, i) => [a, answerOf(answers[i], 'read from').value ?? undefined]));
    },
    set: async (account, value) => {
      answerOf((await request([{ op: 'set', account, value }]))[0], 'write to');
    },
    delete: async (account) =>
      Boolean(answerOf((await request([{ op: 'delete', account }]))[0], 'delete from').deleted),
  };
  // One request for the probe (a write, read back and delete of a test entry) and the entries asked for.
  const probeAccount = `mpay-probe-${process.pid}`;
  const probeValue = `probe ${Date.now()} ü`;
  const ops: Op[] = [
    ...(opts.probe
      ? ([
          { op: 'set', account: probeAccount, value: probeValue },
          { op: 'get', account: probeAccount },
          { op: 'delete', account: probeAccount },
        ] as Op[])
      : []),
    ...(opts.prefetch ?? []).map((account) => ({ op: 'get' as const, account })),
  ];
  if (!ops.length) return { keyring };
  try {
    const answers = await request(ops);
    let i = 0;
    if (opts.probe) {
      answerOf(answers[0], 'write to');
      const back = answerOf(answers[1], 'read from').value;
      answerOf(answers[2], 'delete from');
      if (back !== probeValue)
        throw new KeyringError(`it gave back ${back == null ? 'nothing' : 'another value'} for a test entry`);
      i = 3;
    }
    const prefetched = new Map<string, string | undefined>();
    for (const account of opts.prefetch ?? [])
      prefetched.set(account, answerOf(answers[i++], 'read from').value ?? undefined);
    return { keyring, prefetched };
  } catch (err) {
    if (!opts.probe && err instanceof KeyringError) return { keyring, readError: err.message };
    return {
      unavailable: `the ${name} did not work (${oneLine(err).replace(/^could not \w+ (from |to )?the [\w ]+?: /, '')})`,
    };
  }
}

/** The command that starts the child: bin/run.js, or the executable, says so; in the sources, bin/run.js. */
function childCommand(): string[] {
  const given = (globalThis as { __mpayKeyringChild?: string[] }).__mpayKeyringChild;
  if (given) return given;
  try {
    return [process.execPath, fileURLToPath(new URL('../../bin/run.js', import.meta.url))];
  } catch {
    return [process.execPath, process.argv[1]!];
  }
}

/**
 * One request to a child process that runs the library: its answers, one an operation, or a KeyringError
 * when the child did not answer within `deadlineMs` (it is killed) or failed. Should the run end first,
 * `atExit` kills it (a child blocked on a bus would stay).
 */
function keyringRequest(
  service: string,
  ops: Op[],
  environ: NodeJS.ProcessEnv,
  deadlineMs: number,
  name: string,
  atExit: AtExit = () => () => {},
): Promise<OpAnswer[]> {
  const [cmd, ...args] = childCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, args, {
      env: { ...environ, MPAY_KEYRING_CHILD: '1' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const unregister = atExit(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new KeyringError(`the ${name} did not answer within ${deadlineMs / 1000} s`));
    }, deadlineMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      unregister();
      reject(new KeyringError(`the ${name} could not be asked (${err.message})`));
    });
    child.on('close', () => {
      clearTimeout(timer);
      unregister();
      try {
        resolve((JSON.parse(out) as { answers: OpAnswer[] }).answers);
      } catch {
        reject(new KeyringError(`the ${name}'s process ended without an answer`));
      }
    });
    child.stdin!.on('error', () => {}); // a child that ended early: its close says so
    child.stdin!.end(JSON.stringify({ service, ops }));
  });
}

/** The child's side: one request (JSON), done with the library, its answers as JSON. */
export async function runKeyringRequest(text: string): Promise<string> {
  let addon: Addon;
  const { service, ops } = JSON.parse(text) as { service: string; ops: Op[] };
  try {
    // as ESM sees the CommonJS module: its exports, or them as its default (the executable's bridge)
    const m = await importLazily<Addon & { default?: Addon }>('@napi-rs/keyring');
    addon = typeof m.Entry === 'function' ? m : m.default!;
  } catch (err) {
    const error = `the keyring library could not be loaded (${oneLine(err)})`;
    return JSON.stringify({ answers: ops.map(() => ({ error })) });
  }
  const options = { linux: { store: 'secret-service' as const } };
  const answers: OpAnswer[] = ops.map((o) => {
    try {
      const entry = new addon.Entry(service, o.account, options);
      if (o.op === 'get') return { value: entry.getPassword() ?? null };
      if (o.op === 'set') {
        entry.setPassword(o.value);
        return {};
      }
      return { deleted: entry.deletePassword() };
    } catch (err) {
      return { error: oneLine(err) };
    }
  });
  return JSON.stringify({ answers });
}

function oneLine(err: unknown): string {
  const m = (err instanceof Error ? err.message : String(err))
    .replace(/\s+/g, ' ')
    .replace(/^Platform failure: /, '');
  // its first sentence: D-Bus adds a paragraph of possible causes
  return (/^.*?\.(?= [A-Z]|$)/.exec(m)?.[0] ?? m).replace(/\.$/, '').slice(0, 200);
}

/**
 * Undefined when the D-Bus session bus answers the first line of its handshake within the time limit,
 * else why not. Addresses mpay cannot dial itself (tcp:, launchd:) are left to the library.
 */
export async function sessionBusAnswers(
  environ: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<string | undefined> {
  const address =
    environ.DBUS_SESSION_BUS_ADDRESS ??
    (environ.XDG_RUNTIME_DIR ? `unix:path=${environ.XDG_RUNTIME_DIR}/bus` : undefined);
  if (!address) return 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)';
  const path = socketPath(address);
  if (path === undefined) return undefined;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const hexUid = Buffer.from(String(uid)).toString('hex');
  return new Promise((resolve) => {
    const socket = connect({ path });
    let heard = '';
    const done = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(
      () => done(`the D-Bus session bus did not answer within ${timeoutMs / 1000} s`),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(`\0AUTH EXTERNAL ${hexUid}\r\n`));
    socket.on('data', (d) => {
      heard += d.toString('latin1');
      if (heard.includes('\r\n')) done(undefined); // OK or REJECTED: either way the bus answers
    });
    socket.on('error', (err) =>
      done(`the D-Bus session bus at ${address} cannot be reached (${err.message})`),
    );
    socket.on('close', () => done(`the D-Bus session bus at ${address} closed the connection`));
  });
}

/** The socket of the first unix: address in a D-Bus address list (an abstract one with a leading NUL). */
function socketPath(addresses: string): string | undefined {
  for (const a of addresses.split(';')) {
    const [transport, params = ''] = a.split(/:(.*)/s) as [string, string?];
    if (transport !== 'unix') continue;
    const kv = new Map(
      params.split(',').map((p) => {
        const i = p.indexOf('=');
        return [p.slice(0, i), decodeURIComponent(p.slice(i + 1))] as [string, string];
      }),
    );
    if (kv.has('path')) return kv.get('path');
    if (kv.has('abstract')) return `\0${kv.get('abstract')}`;
  }
  return undefined;
}
