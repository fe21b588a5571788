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
import { connect } from 'node:net';
import { KeyringError } from '../api/errors.js';
import { importLazily } from '../lazy-import.js';

export interface Keyring {
  /** for people: "Secret Service", "macOS Keychain", "Windows Credential Manager" */
  readonly name: string;
  get(account: string): string | undefined;
  set(account: string, value: string): void;
  /** true when there was an entry to delete */
  delete(account: string): boolean;
}

/** `off`: the person turned the keyring off (MPAY_KEYRING=off), which needs no warning. */
export type KeyringOpening = { keyring: Keyring } | { unavailable: string; off?: boolean };

/** How long mpay waits for the session bus to answer (MPAY_KEYRING_TIMEOUT seconds, default 3). */
export function keyringTimeoutMs(environ: NodeJS.ProcessEnv): number | undefined {
  if (environ.MPAY_KEYRING_TIMEOUT === undefined) return 3000;
  const s = Number(environ.MPAY_KEYRING_TIMEOUT);
  return Number.isFinite(s) && s > 0 ? s * 1000 : undefined;
}

export function keyringName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

type Addon = typeof import('@napi-rs/keyring');

/**
 * The keyring of one service name (mpay's, for one config folder), or why there is none. Never throws and
 * never waits longer than the time limit for the bus (plus the library's own 2 s for a silent service).
 */
export async function openKeyring(
  service: string,
  environ: NodeJS.ProcessEnv,
  opts: { probe?: boolean } = {},
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
  let addon: Addon;
  try {
    // as ESM sees the CommonJS module: its exports, or them as its default (the executable's bridge)
    const m = await importLazily<Addon & { default?: Addon }>('@napi-rs/keyring');
    addon = typeof m.Entry === 'function' ? m : m.default!;
  } catch (err) {
    return { unavailable: `the keyring library could not be loaded (${oneLine(err)})` };
  }
  const name = keyringName();
  const options = { linux: { store: 'secret-service' as const } };
  const entry = (account: string) => new addon.Entry(service, account, options);
  const keyring: Keyring = {
    name,
    get: (account) => guard(name, 'read from', () => entry(account).getPassword() ?? undefined),
    set: (account, value) => guard(name, 'write to', () => entry(account).setPassword(value)),
    delete: (account) => guard(name, 'delete from', () => entry(account).deletePassword()),
  };
  // Without a probe nothing is asked of the service here: each entry costs a connection of its own, and
  // the command's first read says soon enough whether the service answers.
  if (opts.probe) {
    try {
      probe(keyring);
    } catch (err) {
      return { unavailable: `the ${name} did not work (${oneLine(err)})` };
    }
  }
  return { keyring };
}

/** A write, read back and delete of a test entry: a keyring that passes keeps what it is given. */
function probe(keyring: Keyring): void {
  const account = `mpay-probe-${process.pid}`;
  const value = `probe ${Date.now()} ü`;
  keyring.set(account, value);
  const back = keyring.get(account);
  keyring.delete(account);
  if (back !== value)
    throw new KeyringError(
      `it gave back ${back === undefined ? 'nothing' : 'another value'} for a test entry`,
    );
}

function guard<T>(name: string, what: string, op: () => T): T {
  try {
    return op();
  } catch (err) {
    throw new KeyringError(`could not ${what} the ${name}: ${oneLine(err)}`, {
      hint: 'Run `mpay auth status` to see where each secret is kept, or log in with --insecure-storage',
      cause: err,
    });
  }
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
