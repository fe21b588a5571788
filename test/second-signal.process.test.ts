// A second signal anywhere ends mpay at once (io/interrupts.ts). Where the first one only asks the work to
// wind down (a batch lets its rows in flight finish, the sandbox and the proxy close their servers), work
// that never finishes (a request the server never answers, a keyring child blocked on a bus) must not
// keep mpay: the second SIGINT or SIGTERM ends it, with what it registered undone (a spooled stdin
// removed, its keyring child killed). Each test waits on events (what mpay prints, a request arriving, the
// process's close) with a deadline that names what did not come; no speed is asserted: a wait that only
// the second signal can end would otherwise last until the test's own time limit.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { bin, cliEnv, holdingProxy, requestCount, sandbox, tempDir, waitUntil } from './helpers.js';

// The tests run at once: each has its own servers, rows and folders (the sandbox below only answers).
let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
/** every mpay process started here: one still running when the tests end (a test failed or timed out) is killed */
const started = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sb.close();
});

/** `p`, or a failure naming `what` once `ms` passed: a hang fails loudly, not at the test's time limit. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: it did not come within ${ms / 1000} s`)), ms);
    }),
  ]);
}

/** Generous: far beyond what an ending takes on a loaded machine, far below what a hang would take. */
const deadline = 20_000;
/** for a start (mpay loading its command, a server listening) on a machine loaded by other work */
const startup = 45_000;

/** mpay in a process of its own, its output collected, with events for a line it prints and its close. */
function mpayProcess(args: string[], env: Record<string, string | undefined>, input?: string) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: {
      ...process.env,
      DBUS_SESSION_BUS_ADDRESS: undefined,
      XDG_RUNTIME_DIR: undefined,
      CI: undefined,
      NO_COLOR: '1',
      ...env,
    } as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.add(child);
  let out = '';
  const listeners: Array<() => void> = [];
  for (const s of [child.stdout!, child.stderr!])
    s.on('data', (d) => {
      out += d;
      for (const l of [...listeners]) l();
    });
  child.stdin!.on('error', () => {});
  child.stdin!.end(input ?? '');
  const closed = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  /** resolves when the output matches `re` */
  const printed = (re: RegExp) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!re.test(out)) return;
        listeners.splice(listeners.indexOf(check), 1);
        resolve();
      };
      listeners.push(check);
      check();
    });
  return { child, closed, printed, output: () => out };
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  expect(child.kill(signal), `${signal} delivered to a running mpay`).toBe(true);
}

const header = 'currency,country,amount,first_name,last_name,phone,email,gateway';
const rowsOf = (n: number, amount: number) =>
  [
    header,
    ...Array.from(
      { length: n },
      (_, i) =>
        `GHS,GH,${amount + i},Kofi,Boateng,+2332012399${String(i).padStart(2, '0')},kofi${i}@example.org,1`,
    ),
  ].join('\n');

for (const [first, second] of [
  ['SIGINT', 'SIGINT'],
  ['SIGINT', 'SIGTERM'],
] as const)
  it.concurrent(
    `a batch whose rows in flight are never answered: ${first} lets them finish, ${second} ends it, its spool removed`,
    async () => {
      // Every initiate is held for good: the rows in flight can only end by the second signal.
      const held = await holdingProxy(sb.url, '/payments/initiate');
      const cfg = tempDir();
      try {
        const m = mpayProcess(
          ['deposit', 'batch', '-', '--concurrency', '2', '--json'],
          cliEnv({ url: held.url }, cfg),
          rowsOf(4, first === second ? 30 : 40),
        );
        await waitUntil('two initiates in flight', () => held.held() === 2, 45_000);
        kill(m.child, first);
        await within(m.printed(/stopping: no new rows start/), deadline, `mpay to say it stops at ${first}`);
        kill(m.child, second);
        const end = await within(m.closed, deadline, `mpay to end at the second signal (${second})`);
        expect(end.code, m.output()).toBe(second === 'SIGTERM' ? 143 : 130);
        expect(m.output()).toMatch(/interrupted again, stopped at once: .*; 2 in flight, 2 not started/);
        expect(m.output()).toMatch(/Resume with: /);
        // the rows it read from stdin are not left on disk
        expect(readdirSync(join(cfg, 'journal', 'spool'))).toEqual([]);
      } finally {
        held.release();
        await held.close();
      }
    },
    90_000,
  );

it.concurrent(
  'the sandbox closing on a request that waits: the second SIGINT ends it',
  async () => {
    // --latency holds every API request: the close after the first SIGINT waits for the one in flight.
    const m = mpayProcess(['sandbox', '--port', '0', '--latency', '3600000'], {});
    await within(m.printed(/listening on http:\/\/[\d.]+:\d+/), startup, 'the sandbox to listen');
    const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(m.output())![1]!;
    const request = fetch(`${url}/restapi/v1/public/countries`).catch(() => undefined);
    // The sandbox counts an API request as it arrives, before its latency.
    await waitUntil(
      'the request to reach the sandbox',
      async () => (await requestCount({ url }, 'GET /public/countries').catch(() => 0)) > 0,
      startup,
    );
    kill(m.child, 'SIGINT');
    await within(m.printed(/SIGINT: stopping/), deadline, 'the sandbox to say it stops');
    kill(m.child, 'SIGINT');
    const end = await within(m.closed, deadline, 'the sandbox to end at the second SIGINT');
    // 0 would be the first signal's ending, after the request was answered: it is the second's
    expect(end.code, m.output()).toBe(130);
    await request;
  },
  90_000,
);

it.concurrent(
  'the proxy closing on a request its upstream never answers: the second SIGTERM ends it',
  async () => {
    // An upstream that takes each request and never answers.
    const sockets = new Set<Socket>();
    let arrived!: () => void;
    const inFlight = new Promise<void>((r) => (arrived = r));
    const upstream = createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
      s.once('data', () => arrived());
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    try {
      const m = mpayProcess(['proxy', '--upstream', upstreamUrl, '--port', '0'], {});
      await within(m.printed(/http:\/\/127\.0\.0\.1:\d+/), startup, 'the proxy to listen');
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(m.output())![1]!;
      const request = fetch(`${url}/restapi/v1/public/countries`).catch(() => undefined);
      await within(inFlight, startup, 'the request to reach the upstream');
      kill(m.child, 'SIGTERM');
      // (two signals of one kind sent at once may arrive as one: the second goes once the first was heard)
      await within(m.printed(/SIGTERM: stopping/), deadline, 'the proxy to say it stops');
      kill(m.child, 'SIGTERM');
      const end = await within(m.closed, deadline, 'the proxy to end at the second SIGTERM');
      expect(end.code, m.output()).toBe(143);
      await request;
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => upstream.close(r));
    }
  },
  90_000,
);

it.concurrent(
  'two signals while the keyring child is blocked on a bus that never answers: mpay ends, its child too',
  async () => {
    // A tcp: bus (mpay cannot dial it itself: only the child's library does) that never says a word.
    const connected: Socket[] = [];
    let dialled!: () => void;
    const busDialled = new Promise<void>((r) => (dialled = r));
    const bus = createServer((s) => {
      connected.push(s);
      s.on('error', () => {});
      s.resume(); // read what comes, so that its end is heard
      dialled();
    });
    await new Promise<void>((r) => bus.listen(0, '127.0.0.1', r));
    try {
      const m = mpayProcess(
        [
          'login',
          '--env',
          'sandbox',
          '--base-url',
          sb.url,
          '--merchant-key-stdin',
          '--site-id',
          demoMerchant.siteId,
          '--api-key',
          demoMerchant.apiKey,
        ],
        {
          MPAY_CONFIG_DIR: join(tempDir(), 'mpay'),
          DBUS_SESSION_BUS_ADDRESS: `tcp:host=127.0.0.1,port=${(bus.address() as { port: number }).port}`,
          // far beyond the test's deadlines: only a signal ends this wait
          MPAY_KEYRING_TIMEOUT: '600',
        },
        demoMerchant.merchantKey,
      );
      await within(busDialled, 45_000, 'the keyring child to dial the bus');
      const dropped = new Promise<void>((r) => connected[0]!.on('close', () => r()));
      kill(m.child, 'SIGINT');
      m.child.kill('SIGTERM'); // (it may have ended already)
      const end = await within(m.closed, deadline, 'mpay to end at the signals');
      // whichever of the two it handled first (both pending at once, the order is the kernel's)
      expect([130, 143], m.output()).toContain(end.code);
      await within(dropped, deadline, "the keyring child's connection to drop (the child killed)");
    } finally {
      for (const s of connected) s.destroy();
      await new Promise((r) => bus.close(r));
    }
  },
  90_000,
);
