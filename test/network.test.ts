// What crosses the network besides plain requests: HTTPS with a private CA, an HTTP proxy with NO_PROXY,
// and what start-up loads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, cliEnv, root, run, sandbox, tempDir } from './helpers.js';

describe('TLS with a private CA', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  let ca: string;
  beforeAll(async () => {
    const dir = tempDir();
    ca = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    // A self-signed certificate for the loopback names, made here for this test.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        ca,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    sb = await sandbox({ tls: { key: readFileSync(key), cert: readFileSync(ca) } });
  });
  afterAll(() => sb.close());

  it('an unknown CA is refused (TLS verification stays on), with a hint', async () => {
    expect(sb.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await run(['countries', '--json'], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(8);
    expect(r.json().error.message).toMatch(/TLS verification failed|self.signed/i);
  });

  it('NODE_EXTRA_CA_CERTS makes the same request succeed', async () => {
    const r = await run(['currencies', '--merchant', '--json'], {
      env: cliEnv(sb, tempDir(), { NODE_EXTRA_CA_CERTS: ca }),
    });
    expect(r.code).toBe(0);
    expect(r.json().length).toBeGreaterThan(0);
  });
});

describe('HTTP proxy', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  let proxy: Server;
  let proxyUrl: string;
  const seen: string[] = [];
  beforeAll(async () => {
    sb = await sandbox();
    // A forward proxy that tunnels with CONNECT, as corporate proxies do for HTTPS (and as hpagent asks).
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      seen.push(`${req.method} ${req.url}`);
      const [host, port] = req.url!.split(':');
      const upstream = connect(Number(port), host!, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const addr = proxy.address();
    proxyUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await sb.close();
    await new Promise((r) => proxy.close(r));
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

describe('start-up stays light', () => {
  // The bundle's metafile says which packages each output file holds; the trace says which files a run
  // loaded. Together: which packages a run loaded.
  const heavy = ['got', '@inquirer/prompts', '@inquirer/core', 'fastify', 'cli-table3', 'zod', 'conf', 'ajv'];
  const packagesLoaded = (args: string[]) => {
    const trace = join(tempDir(), 'imports.txt');
    const r = spawnSync(
      process.execPath,
      ['--import', join(root, 'test/fixtures/trace-imports.mjs'), bin, ...args],
      {
        env: {
          ...process.env,
          MPAY_TRACE_FILE: trace,
          MPAY_CONFIG_DIR: tempDir(),
          MPAY_BASE_URL: 'http://127.0.0.1:9',
        },
        encoding: 'utf8',
      },
    );
    const meta = JSON.parse(readFileSync(join(root, 'dist', 'bundle-meta.json'), 'utf8')) as Record<
      string,
      string[]
    >;
    const files = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((u) => u.includes('/dist/'))
      .map((u) => `dist/${u.split('/dist/')[1]}`);
    return { status: r.status, files, packages: new Set(files.flatMap((f) => meta[f] ?? [`unknown:${f}`])) };
  };

  it('--version loads nothing of the bundle, not even oclif', () => {
    const r = packagesLoaded(['--version']);
    expect(r.status).toBe(0);
    expect(r.files).toEqual([]);
  });

  for (const args of [['--help'], ['deposit', '--help'], ['currencies', '--help'], ['sandbox', '--help']]) {
    it(`${args.join(' ')} loads none of got, inquirer, fastify, cli-table3, zod, conf`, () => {
      const r = packagesLoaded(args);
      expect(r.status).toBe(0);
      expect(r.packages.has('@oclif/core')).toBe(true); // the trace sees the bundle
      expect(heavy.filter((p) => r.packages.has(p))).toEqual([]);
    });
  }

  it('a command that calls the API loads got and zod, and still not inquirer, fastify or conf', () => {
    const r = packagesLoaded(['countries', '--json']);
    expect(r.status).toBe(8); // nothing listens on port 9
    expect(r.packages.has('got')).toBe(true);
    expect(r.packages.has('zod')).toBe(true);
    expect(['@inquirer/prompts', 'fastify', 'conf', 'cli-table3'].filter((p) => r.packages.has(p))).toEqual(
      [],
    );
  });
});
