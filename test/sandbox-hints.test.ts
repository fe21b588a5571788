// What `mpay sandbox` says when it cannot start: the port-in-use hint names a port that is free.
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sandbox } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it.concurrent('the port-in-use hint of mpay sandbox names a port that is free', async () => {
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve(s));
    });
  const first = await listen(0);
  const port = (first.address() as { port: number }).port;
  // the next port busy too (when it can be had): the hint must skip it
  const next = await listen(port + 1).catch(() => undefined);
  try {
    const r = await mpay(['sandbox', '--port', String(port), '--json']);
    expect(r.code).toBe(2);
    const hint: string = r.json().error.hint;
    const offered = Number(/--port (\d+) \(free now\)/.exec(hint)?.[1]);
    expect(offered, hint).toBeGreaterThan(port + 1);
    const s = await listen(offered);
    s.close();
  } finally {
    first.close();
    next?.close();
  }
});
