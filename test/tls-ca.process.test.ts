// HTTPS with a private CA: refused without it, through HTTPS_PROXY, and trusted with NODE_EXTRA_CA_CERTS
// (read at start-up, so each run is a process). The tests run at once: each waits on its own processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { cliEnv, run, sandbox, selfSignedCert, tempDir } from './helpers.js';

describe.concurrent('TLS with a private CA', () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  let ca: string;
  beforeAll(async () => {
    // A self-signed certificate for the loopback names, made here for this test.
    const made = selfSignedCert();
    ca = made.certFile;
    sb = await sandbox({ tls: { key: made.key, cert: made.cert } });
  });
  afterAll(() => sb.close());

  it('an unknown CA is refused (TLS verification stays on), with a hint', async () => {
    expect(sb.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await run(['countries', '--json'], { env: cliEnv(sb, tempDir()) });
    expect(r.code).toBe(8);
    expect(r.json().error.message).toMatch(/TLS verification failed|self.signed/i);
  });

  it('HTTPS_PROXY tunnels TLS through the proxy, which sees the host and nothing else', async () => {
    const proxy = await connectProxy();
    try {
      const r = await run(['currencies', '--merchant', '--json'], {
        env: cliEnv(sb, tempDir(), { NODE_EXTRA_CA_CERTS: ca, HTTPS_PROXY: proxy.url }),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(proxy.seen).toContain(`CONNECT ${new URL(sb.url).host}`);
    } finally {
      await proxy.close();
    }
  });

  it('NODE_EXTRA_CA_CERTS makes the same request succeed', async () => {
    const r = await run(['currencies', '--merchant', '--json'], {
      env: cliEnv(sb, tempDir(), { NODE_EXTRA_CA_CERTS: ca }),
    });
    expect(r.code).toBe(0);
    expect(r.json().length).toBeGreaterThan(0);
  });
});

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
