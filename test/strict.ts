// A strict test sandbox, as gh's httpmock.Registry with Verify: a real sandbox behind a front on loopback
// that forwards only the requests a test declared, and fails the test on any other. A count compared
// before and after catches a request only if it lands on a route the test thought of; this catches every
// request, whatever its path, method or spelling, and names it.
import { createServer, request as httpRequest } from 'node:http';
import type { SandboxOptions } from '../src/sandbox/server.js';
import { sandbox } from './helpers.js';

export interface StrictSandbox {
  /** the front's URL: give it to mpay as the base URL */
  url: string;
  /** the real sandbox behind it (its own URL bypasses the front: for setting the scene) */
  inner: Awaited<ReturnType<typeof sandbox>>;
  /** `times` more requests of "METHOD /path" (relative to /restapi/v1/, no query) are expected */
  expect(route: string, times?: number): void;
  /** the token and every GET, any number of times: what a test of money requests does not count */
  allowReads(): void;
  /** every request that was not declared, in order, as "METHOD raw-url" */
  readonly unexpected: string[];
  /** every request forwarded, as "METHOD /path" */
  readonly forwarded: string[];
  /** throws when a request was not declared, or a declared one did not come */
  verify(): void;
  close(): Promise<void>;
}

export async function strictSandbox(opts: SandboxOptions = {}): Promise<StrictSandbox> {
  const inner = await sandbox(opts);
  const target = new URL(inner.url);
  const expected = new Map<string, number>();
  let reads = false;
  const unexpected: string[] = [];
  const forwarded: string[] = [];
  const server = createServer((req, res) => {
    const raw = req.url ?? '/';
    const path = raw.split('?')[0]!.replace(/^\/restapi\/v1\//, '');
    const route = `${req.method} /${path}`;
    const isRead = req.method === 'GET' || path === 'auth/merchant/token/generate';
    const left = expected.get(route) ?? 0;
    if (!(reads && isRead) && left <= 0) {
      unexpected.push(`${req.method} ${raw}`);
      req.resume();
      res.writeHead(599, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, message: `strict sandbox: undeclared request ${route}` }));
      return;
    }
    if (!(reads && isRead)) expected.set(route, left - 1);
    forwarded.push(route);
    const up = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: raw, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    inner,
    expect(route, times = 1) {
      expected.set(route, (expected.get(route) ?? 0) + times);
    },
    allowReads() {
      reads = true;
    },
    unexpected,
    forwarded,
    verify() {
      const missing = [...expected].filter(([, n]) => n > 0).map(([r, n]) => `${r} (${n} more)`);
      if (unexpected.length || missing.length)
        throw new Error(
          `strict sandbox: ${unexpected.length ? `undeclared: ${unexpected.join(', ')}` : ''}${unexpected.length && missing.length ? '; ' : ''}${missing.length ? `declared but not sent: ${missing.join(', ')}` : ''}`,
        );
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await inner.close();
    },
  };
}
