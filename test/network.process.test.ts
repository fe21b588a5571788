// What crosses the network besides plain requests: HTTPS with a private CA, an HTTP proxy with NO_PROXY,
// and what start-up loads. The tests of each describe run at once: each waits on its own processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lazyPackages } from '../scripts/bundle-config.js';
import { bin, cliEnv, root, run, sandbox, tempDir } from './helpers.js';

/** A forward proxy that tunnels with CONNECT, as corporate proxies do for HTTPS (and as hpagent asks). */
async function connectProxy(): Promise<{ url: string; seen: string[]; close: () => Promise<unknown> }> {
  const seen: string[] = [];
  const proxy: Server = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(`${req.method} ${req.url}`);
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // Either side closing ends the tunnel, so that close() below does not wait on it.
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const addr = proxy.address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    seen,
    close: () => new Promise((r) => proxy.close(r)),
  };
}

describe('HTTP proxy', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  let proxy: Awaited<ReturnType<typeof connectProxy>>;
  let proxyUrl: string;
  let seen: string[];
  beforeAll(async () => {
    sb = await sandbox();
    proxy = await connectProxy();
    proxyUrl = proxy.url;
    seen = proxy.seen;
  });
  afterAll(async () => {
    await sb.close();
    await proxy.close();
  });

  it('HTTP_PROXY tunnels requests through the proxy; NO_PROXY bypasses it', async () => {
    const via = await run(['currencies', '--merchant', '--json'], {
      env: cliEnv(sb, tempDir(), { HTTP_PROXY: proxyUrl }),
    });
    expect(via.code).toBe(0);
    expect(seen).toContain(`CONNECT ${new URL(sb.url).host}`);
    const before = seen.length;
    const direct = await run(['countries', '--json'], {
      env: cliEnv(sb, tempDir(), { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' }),
    });
    expect(direct.code).toBe(0);
    expect(seen.length).toBe(before);
    const doctor = await run(['doctor', '--json'], { env: cliEnv(sb, tempDir(), { HTTP_PROXY: proxyUrl }) });
    expect(doctor.json().checks.find((c: { name: string }) => c.name === 'proxy and CA').detail).toContain(
      `proxy ${proxyUrl}`,
    );
  });
});

describe.concurrent('start-up stays light', () => {
  // dist/mpay.cjs holds oclif, the commands, got and zod, each module wrapped to run on first use;
  // inquirer, cli-table3, conf, fastify and qrcode-terminal stay in node_modules. A trace of what a run
  // imports and requires shows what it loaded; got shows itself by the builtins it requires (https, tls).
  const trace = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
    const file = join(tempDir(), 'trace.txt');
    const child = spawn(
      process.execPath,
      ['--import', join(root, 'test/fixtures/trace-imports.mjs'), bin, ...args],
      {
        env: {
          ...process.env,
          MPAY_TRACE_FILE: file,
          MPAY_CONFIG_DIR: tempDir(),
          MPAY_BASE_URL: 'http://127.0.0.1:9',
          MPAY_RETRY_BASE_MS: '1',
          ...extraEnv,
        },
        stdio: 'ignore',
      },
    );
    // a deadline for the process, as run() gives (test/helpers.ts)
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const status = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    }).finally(() => clearTimeout(timer));
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const loaded = (name: string) =>
      lines.some(
        (l) =>
          l.includes(`node_modules/${name}/`) ||
          l === `require ${name}` ||
          l.startsWith(`require ${name}/`) || // a file of the package by its subpath (the MCP SDK's)
          l.endsWith(` ${name}`),
      );
    return { status, lines, loaded };
  };
  const lazy = ['@inquirer/prompts', 'cli-table3', 'conf', 'fastify', 'qrcode-terminal'];

  it('--version loads nothing but bin/run.js', async () => {
    const r = await trace(['--version']);
    expect(r.status).toBe(0);
    expect(r.lines.filter((l) => l.includes('/dist/') || l.includes('node_modules/'))).toEqual([]);
  });

  for (const args of [['--help'], ['deposit', '--help'], ['currencies', '--help'], ['sandbox', '--help']]) {
    it(`${args.join(' ')} loads none of inquirer, cli-table3, conf, fastify, and does not start got`, async () => {
      const r = await trace(args);
      expect(r.status).toBe(0);
      expect(r.lines.some((l) => l.endsWith('/bin/load-cached.js'))).toBe(true); // the bundle's loader ran
      expect(lazy.filter(r.loaded)).toEqual([]);
      expect(['node:https', 'node:tls'].filter(r.loaded)).toEqual([]);
    });
  }

  it('a command that calls the API starts got, and still loads no inquirer, fastify, conf or cli-table3', async () => {
    const r = await trace(['countries', '--json']);
    expect(r.status).toBe(8); // nothing listens on port 9
    expect(r.loaded('node:https')).toBe(true);
    expect(lazy.filter(r.loaded)).toEqual([]);
  });

  // oclif, in its development mode, looks for TypeScript sources and loads the compiler to read tsconfig.json,
  // on every run (src/execute.ts); this suite runs with NODE_ENV=test, a developer's shell may have either.
  for (const mode of ['development', 'test']) {
    it(`under NODE_ENV=${mode} a run does not load the TypeScript compiler`, async () => {
      const r = await trace(['countries', '--json'], { NODE_ENV: mode });
      expect(r.status).toBe(8);
      expect(r.loaded('node:https')).toBe(true); // the run got as far as the request
      expect(r.lines.filter((l) => /typescript|ts-node|tsx/.test(l))).toEqual([]);
    });
  }

  // SQLite (libsql, a native addon) is for the journal: loaded when a command opens one (src/factory.ts)
  const sqlite = (r: { loaded: (name: string) => boolean }) =>
    ['libsql', '@libsql/linux-x64-gnu'].filter(r.loaded);
  // Every package the bundle leaves out for the commands that use it (scripts/bundle-config.js): SQLite, the
  // MCP SDK, fastify, inquirer, tar, ajv, the phone plans, the keyring's addon, ... by the package's folder.
  const packageOf = (p: string) =>
    p
      .split('/')
      .slice(0, p.startsWith('@') ? 2 : 1)
      .join('/');
  const leftOut = [...new Set(lazyPackages.map(packageOf))];
  for (const args of [['countries', '--json'], ['currencies', '--json'], ['--version'], ['--help']])
    it(`${args.join(' ')} loads no SQLite, no MCP SDK, no fastify: none of the packages left out of the bundle`, async () => {
      const r = await trace(args);
      expect(r.status).toBe(args[0] === '--version' || args[0] === '--help' ? 0 : 8);
      expect(leftOut).toEqual(expect.arrayContaining(['libsql', '@modelcontextprotocol/sdk', 'fastify']));
      expect(sqlite(r)).toEqual([]);
      expect(leftOut.filter(r.loaded)).toEqual([]);
    });

  it('a command that reads the journal loads SQLite', async () => {
    const r = await trace(['history', '--json']);
    expect(r.status).toBe(0);
    expect(r.loaded('libsql')).toBe(true);
  });

  it('a table loads cli-table3 when it draws one', async () => {
    const r = await trace(['config', 'list']);
    expect(r.status).toBe(0);
    expect(r.loaded('cli-table3')).toBe(true);
  });
});
