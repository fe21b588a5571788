// Waits made visible: a huge Retry-After, and a --rate-limit with no unit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, loopbackServer, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let a: Awaited<ReturnType<typeof sandbox>>;
let b: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  [a, b] = await Promise.all([sandbox(), sandbox()]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

/**
 * A suite's tests at once (each in config folders, on terminals, of its own; the sandboxes shared, each
 * test with references of its own), with a deadline above their waits' for a loaded machine.
 */
const together = { concurrent: true, timeout: 120_000 };

describe('7. waits are visible; the sandbox says how it runs', together, () => {
  it('a Retry-After of 99999999999999999999999 is "more than a day", not 1e+23 s', async () => {
    const server = await loopbackServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '99999999999999999999999', 'content-type': 'application/json' });
      res.end('{"message":"slow down"}');
    });
    try {
      const r = await mpay(['countries', '--json'], { env: cliEnv(server, tempDir()) });
      expect(r.code).toBe(12);
      expect(r.json().error.message).toMatch(/asked to wait more than a day, more than the 60 s mpay waits/);
      expect(r.stdout + r.stderr).not.toMatch(/e\+\d/);
    } finally {
      await server.close();
    }
  });

  it('`--rate-limit 20` (no unit) is refused, with the two it could mean', async () => {
    const r = await mpay(['sandbox', '--port', '0', '--rate-limit', '20']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the unit required/);
    expect(r.stderr).toMatch(/--rate-limit 20\/s or --rate-limit 20\/min/);
  });
});
