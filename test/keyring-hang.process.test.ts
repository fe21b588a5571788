// A keyring never hangs, whatever the bus (config/keyring.ts): the library runs in a child process that
// mpay kills at MPAY_KEYRING_TIMEOUT plus 2 s. Fake buses of the test's own: a TCP listener that never
// answers (a `tcp:` address, which mpay cannot dial itself), a unix socket that answers the
// authentication and then nothing (no Hello), an abstract socket that never answers. Each login ends, the
// secrets in the file, said why; and SIGTERM or SIGINT during a keyring wait ends mpay at once, its child
// with it. No timing is asserted: a hang trips the test's own time limit. The tests run at once: each
// waits out a time limit of its own, on a bus of its own.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { bin, run, sandbox, tempDir } from './helpers.js';

/**
 * Several Node starts at once on a machine that may be loaded: each test's own limit, wider than the
 * default, and a spawned run's (run() kills it at timeoutMs) inside it. A hang still trips them.
 */
const limits = { timeout: 90_000 };
const runLimitMs = 75_000;

/** bin/run.js, killed by the kernel should this worker end first (setpriv's parent-death signal). */
const mpayDiesWithWorker = ['setpriv', '--pdeathsig', 'KILL', process.execPath, bin];

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

interface FakeBus {
  address: string;
  /** resolves at the next connection */
  connected(): Promise<Socket>;
  close(): Promise<void>;
}

/** A bus of the test's own: `answer` is what it says to each line it hears (nothing: silent). */
async function fakeBus(
  listen: (s: Server) => Promise<string>,
  answer: (line: string) => string | undefined = () => undefined,
): Promise<FakeBus> {
  const waiting: Array<(s: Socket) => void> = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let heard = '';
    socket.on('data', (d) => {
      heard += d.toString('latin1');
      let i;
      while ((i = heard.indexOf('\r\n')) >= 0) {
        const line = heard.slice(0, i).replace(/^\0/, '');
        heard = heard.slice(i + 2);
        const reply = answer(line);
        if (reply) socket.write(reply);
      }
    });
    waiting.shift()?.(socket);
  });
  const address = await listen(server);
  return {
    address,
    connected: () => new Promise((r) => waiting.push(r)),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

const tcpBus = () =>
  fakeBus(
    (s) =>
      new Promise((r) =>
        s.listen(0, '127.0.0.1', () =>
          r(`tcp:host=127.0.0.1,port=${(s.address() as { port: number }).port}`),
        ),
      ),
  );
const unixBus = () => {
  const path = join(tempDir(), 'bus');
  // Answers the authentication as a dbus-daemon does, then never a word (no Hello reply).
  return fakeBus(
    (s) => new Promise((r) => s.listen(path, () => r(`unix:path=${path}`))),
    (line) => (line.startsWith('AUTH') ? 'OK 0123456789abcdef0123456789abcdef\r\n' : undefined),
  );
};
const abstractBus = () => {
  const name = `mpay-test-${process.pid}-${Date.now()}`;
  return fakeBus((s) => new Promise((r) => s.listen(`\0${name}`, () => r(`unix:abstract=${name}`))));
};

function loginArgs(): string[] {
  return [
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
  ];
}

for (const [shape, make] of [
  ['a tcp: bus that never answers', tcpBus],
  ['a unix bus that authenticates and then never answers Hello', unixBus],
  ['an abstract bus that never answers', abstractBus],
] as const)
  it.concurrent(
    `${shape}: login ends at the limit, the secrets in the file, and says why`,
    limits,
    async () => {
      const bus = await make();
      try {
        const dir = join(tempDir(), 'mpay');
        const r = await run(loginArgs(), {
          command: mpayDiesWithWorker,
          timeoutMs: runLimitMs,
          env: { MPAY_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: bus.address, MPAY_KEYRING_TIMEOUT: '1' },
          input: demoMerchant.merchantKey,
        });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(
          /no usable keyring \((the D-Bus session bus|the Secret Service)[^)]*did not answer within \d+ s/,
        );
        expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(demoMerchant.merchantKey);
      } finally {
        await bus.close();
      }
    },
  );

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  it.concurrent(
    `${signal} during a keyring wait ends mpay at once, and its keyring child with it`,
    limits,
    async ({ onTestFinished }) => {
      const bus = await tcpBus();
      try {
        const [cmd, ...args] = mpayDiesWithWorker;
        const child = spawn(cmd!, [...args, ...loginArgs()], {
          env: {
            ...process.env,
            MPAY_CONFIG_DIR: join(tempDir(), 'mpay'),
            DBUS_SESSION_BUS_ADDRESS: bus.address,
            // far beyond the test's own time limit: only the signal can end this wait
            MPAY_KEYRING_TIMEOUT: '600',
          },
          stdio: ['pipe', 'ignore', 'pipe'],
        });
        child.stdin!.end(demoMerchant.merchantKey);
        const ended = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
        // a test that fails or times out before its signal leaves no mpay behind
        onTestFinished(async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGKILL');
          await ended;
        });
        // The keyring's child process dialled the bus: mpay is waiting on it.
        const socket = await bus.connected();
        const dropped = new Promise<void>((r) => socket.on('close', () => r()));
        child.kill(signal);
        expect(await ended).toBe(signal === 'SIGTERM' ? 143 : 130);
        // the child that held the connection is gone too (a deadline that says so, not the test's limit)
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          dropped,
          new Promise((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new Error("the keyring child's bus connection did not drop within 15 s: it was not killed"),
                ),
              15_000,
            );
          }),
        ]).finally(() => clearTimeout(timer));
      } finally {
        await bus.close();
      }
    },
  );
