// Wrong URLs, redirects and a journal that cannot be written: what a support engineer hits on a real
// network, reproduced on loopback. bin/run.js against the sandbox or small servers made here.
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  giveToUnprivileged,
  noStack,
  run,
  selfSignedCert,
  tempDir,
} from './helpers.js';
import { strictSandbox, type StrictSandbox } from './strict.js';

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

// The redirects at once, each with servers of its own. What a redirect does with the credentials is the
// client's, so the first two run in-process; the https one needs NODE_EXTRA_CA_CERTS, which only a
// process reads as it starts.
describe.concurrent('redirects', () => {
  it('a redirect from https to plain http is refused', async () => {
    const tls = selfSignedCert();
    const plain = await recorder((_req, res) => json(res, 200, { success: true, message: 'ok', data: [] }));
    const secure = await recorder((req, res) => {
      res.writeHead(301, { location: `http://127.0.0.1:${plain.port}${req.url}` });
      res.end();
    }, tls);
    try {
      const r = await run(['countries', '--json'], {
        env: cliEnv({ url: `https://127.0.0.1:${secure.port}` }, tempDir(), {
          NODE_EXTRA_CA_CERTS: tls.certFile,
        }),
      });
      expect(secure.seen).toHaveLength(1);
      expect(plain.seen).toEqual([]);
      expect(r.code, r.stdout).toBe(7);
      expect(r.json().error.message).toMatch(
        /refused a redirect from https:\/\/127\.0\.0\.1:\d+ to plain http:/,
      );
    } finally {
      await secure.close();
      await plain.close();
    }
  });
});

describe('a journal that cannot be written', () => {
  // strict: reads may go, any request that moves money fails the test
  let sb: StrictSandbox;
  beforeAll(async () => {
    sb = await strictSandbox();
    sb.allowReads();
  });
  afterAll(() => sb.close());

  it('no money-moving request is sent, and the error says where and why', async () => {
    const cfg = tempDir();
    mkdirSync(join(cfg, 'journal'));
    giveToUnprivileged(cfg);
    chmodSync(cfg, 0o700);
    chmodSync(join(cfg, 'journal'), 0o500);
    const runs = await Promise.all(
      [
        ['deposit', ...customerArgs({ reference: 'ro-d' })],
        ['withdraw', 'initiate', ...customerArgs({ reference: 'ro-w', gateway: '' })],
      ].map((args) =>
        run([...args, '--json'], { env: { ...cliEnv(sb, cfg), HOME: cfg }, unprivileged: true }),
      ),
    );
    for (const r of runs) {
      expect(r.code, `${r.stdout}${r.stderr}`).toBe(9);
      expect(r.json().error.kind).toBe('local');
      // The money gate takes the transaction's lock beside the journal before it writes the 'sent' line:
      // the first thing it cannot write is named.
      expect(r.json().error.message).toBe(
        `Nothing was sent: Cannot make the lock folder ${join(cfg, 'journal', 'locks')} (EACCES)`,
      );
      expect(noStack(r.stderr)).toBe(true);
    }
    sb.verify();
    expect(readdirSync(join(cfg, 'journal'))).toEqual([]);
    expect(sb.inner.state.list()).toEqual([]);
  });
});
