import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiInitiate, apiToken, cliEnv, customerArgs, noStack, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback server that records what reaches it. */
async function recorder(handler: Handler, tls?: { key: string; cert: string }) {
  const seen: Seen[] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      handler(req, res, body);
    });
  };
  const server = tls ? createHttpsServer(tls, onRequest) : createHttpServer(onRequest);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { seen, port, close: () => new Promise((r) => server.close(r)) };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** Answers token generate like the API, and everything else with `rest`. */
const api =
  (rest: Handler): Handler =>
  (req, res, body) => {
    if (req.url === '/restapi/v1/auth/merchant/token/generate')
      return json(res, 200, { success: true, message: 'ok', data: { token: 'tok-1' } });
    rest(req, res, body);
  };

// In-process: what is checked is the command's answer, not the process's.
describe('base URLs', () => {
  let sb: Sb;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('a base URL ending in /restapi/v1 is accepted with a note', async () => {
    for (const given of [`${sb.url}/restapi/v1`, `${sb.url}/restapi/v1/`, `${sb.url}//restapi/v1`]) {
      const r = await mpay(['balances', '--json'], { env: cliEnv(sb, tempDir(), { MPAY_BASE_URL: given }) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `mpay: warning: the base URL ${given} ends in /restapi/v1, which mpay adds itself; using ${sb.url}\n`,
      );
    }
    const cfg = tempDir();
    const set = await mpay(['config', 'set', 'sandbox.base_url', `${sb.url}/restapi/v1`], {
      env: { MPAY_CONFIG_DIR: cfg },
    });
    expect(set.code, set.stderr).toBe(0);
    expect(
      (await mpay(['config', 'get', 'sandbox.base_url'], { env: { MPAY_CONFIG_DIR: cfg } })).stdout.trim(),
    ).toBe(sb.url);
  });

  it('a 404 that is not the API\'s own answer says "not found: check the base URL", not the transaction hint', async () => {
    const env = cliEnv(sb, tempDir(), { MPAY_BASE_URL: `${sb.url}/api` });
    for (const args of [['countries'], ['status', 'a'.repeat(64), '--status', 'failed', '--gateway', '1']]) {
      const r = await mpay([...args, '--json'], { env });
      expect(r.code, r.stdout).toBe(7);
      expect(r.json().error.message).toMatch(/^Not found: .* check the base URL$/);
      expect(r.json().error.hint).not.toMatch(/initiated/);
    }
    // The API's own 404 (shape A) is still the transaction's state: exit 5 with its hint.
    const right = cliEnv(sb, tempDir());
    const hash = (await (await apiInitiate(sb.url, await apiToken(sb.url), 'not-found-real')).json()).data
      .has_token;
    expect((await mpay(['status', hash, '--status', 'failed', '--gateway', '1'], { env: right })).code).toBe(
      0,
    );
    const again = await mpay(['status', hash, '--status', 'failed', '--gateway', '1', '--json'], {
      env: right,
    });
    expect(again.code).toBe(5);
    expect(again.json().error.message).toBe('Transaction status is not initiated.');
  });
});

// The redirects at once, each with servers of its own. What a redirect does with the credentials is the
// client's, so the first two run in-process; the https one needs NODE_EXTRA_CA_CERTS, which only a
// process reads as it starts.
describe.concurrent('redirects', () => {
  it('a GET redirected to another host arrives there without the Authorization header', async () => {
    const other = await recorder((_req, res) => json(res, 200, { success: true, message: 'ok', data: [] }));
    const first = await recorder(
      api((req, res) => {
        res.writeHead(302, { location: `http://localhost:${other.port}${req.url}` });
        res.end();
      }),
    );
    try {
      const r = await mpay(['balances', '--json'], {
        env: cliEnv({ url: `http://127.0.0.1:${first.port}` }, tempDir()),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(first.seen.find((s) => s.url === '/restapi/v1/merchant/currencies')?.authorization).toBe(
        'Bearer tok-1',
      );
      expect(other.seen).toHaveLength(1);
      expect(other.seen[0]!.authorization).toBeUndefined();
    } finally {
      await first.close();
      await other.close();
    }
  });

  it('a POST answered with a redirect is not followed: its credentials go nowhere else', async () => {
    const other = await recorder((_req, res) => json(res, 200, { success: true, message: 'ok', data: {} }));
    const first = await recorder(
      api((req, res) => {
        if (req.method === 'GET') return json(res, 200, { success: true, message: 'ok', data: [] });
        res.writeHead(307, { location: `http://localhost:${other.port}${req.url}` });
        res.end();
      }),
    );
    try {
      const cfg = tempDir();
      const r = await mpay(['deposit', 'initiate', ...customerArgs({ gateway: '' }), '--force', '--json'], {
        env: cliEnv({ url: `http://127.0.0.1:${first.port}` }, cfg),
      });
      // An empty merchant currency list, and --force: the initiate goes out, and is answered with a 307.
      expect(first.seen.some((s) => s.method === 'POST' && s.url === '/restapi/v1/payments/initiate')).toBe(
        true,
      );
      expect(other.seen.filter((s) => s.method === 'POST')).toEqual([]);
      expect(other.seen.some((s) => s.body.includes('ak_sandbox_demo'))).toBe(false);
      expect(r.code, r.stdout).toBe(7);
      expect(r.json().error.message).toMatch(/redirect \(HTTP 307\) .* does not follow a redirect of a POST/);
      expect(noStack(r.stderr)).toBe(true);
    } finally {
      await first.close();
      await other.close();
    }
  });
});
