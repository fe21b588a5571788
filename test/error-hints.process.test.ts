// The scheme hint: https:// to a plain-http server suggests http://, and the other way round.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sandbox, selfSignedCert } from './helpers.js';
import { mpay, twoProfiles } from './in-process.js';

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

describe('4. errors say what to change', together, () => {
  it('https:// to a plain-http server suggests http://, and http:// to a TLS server suggests https://', async () => {
    const env = await twoProfiles(a, b);
    const port = new URL(a.url).port;
    const tls = await mpay(['countries', '--base-url', `https://127.0.0.1:${port}`], { env });
    expect(tls.code).toBe(8);
    expect(tls.stderr).toMatch(/did not answer in TLS/);
    expect(tls.stderr).toContain(`use --base-url http://127.0.0.1:${port}`);
    expect(tls.stderr).not.toMatch(/wrong version number/);
    const { key, cert } = selfSignedCert();
    const server = createHttps({ key, cert }, (_q, res) => res.end('[]'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const tlsPort = (server.address() as AddressInfo).port;
      const plain = await mpay(['countries', '--base-url', `http://127.0.0.1:${tlsPort}`], { env });
      expect(plain.code).toBe(8);
      expect(plain.stderr).toContain(`If it serves HTTPS, use --base-url https://127.0.0.1:${tlsPort}`);
    } finally {
      server.close();
    }
  });
});
