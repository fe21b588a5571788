// Replay stops before a money call once a call before it failed (flows/replay.ts), a call the network
// failed (no answer at all: status 0) as much as one the server refused; --keep-going sends them. In this
// process, against a sandbox behind a forwarder that drops the connection of one route.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, file, sandbox, tempDir } from './helpers.js';
import { forwarder } from './forwarder.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/** A trace of a deposit initiated, its status updated, then processed, as one HAR file. */
async function trace(reference: string): Promise<string> {
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const parts = ['a', 'b', 'c'].map((n) => join(cfg, `${n}.har`));
  const d = await mpay(
    ['deposit', 'initiate', ...customerArgs({ reference, gateway: '' }), '--trace', parts[0]!, '--json'],
    {
      env,
    },
  );
  expect(d.code, d.stderr).toBe(0);
  const s = await mpay(
    ['status', reference, '--status', 'initiated', '--gateway', '1', '--trace', parts[1]!],
    { env },
  );
  expect([0, 4], s.stderr).toContain(s.code);
  const p = await mpay(['deposit', 'process', reference, '--trace', parts[2]!, '--json'], { env });
  expect([0, 5], p.stdout + p.stderr).toContain(p.code);
  const hars = parts.map((f) => JSON.parse(readFileSync(f, 'utf8')));
  return file(
    `${reference}.har`,
    JSON.stringify({ log: { ...hars[0].log, entries: hars.flatMap((h) => h.log.entries) } }),
  );
}

describe('replay after a call the network failed', () => {
  it('sends no money call after it, and says why; --keep-going sends them', async () => {
    const har = await trace('rp-net-1');
    const fwd = await forwarder(sb.url, { drop: (route) => route.endsWith('/payments/status/update') });
    const routes = () => fwd.seen.map((s) => s.route);
    try {
      const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: fwd.url });
      const r = await mpay(['replay', har, '--json'], { env });
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      const calls = r.json() as { path: string; replayed: { status: number } | null; skipped?: string }[];
      const status = calls.find((c) => c.path === '/payments/status/update')!;
      expect(status.replayed?.status).toBe(0);
      const processed = calls.find((c) => c.path === '/payments/processed')!;
      expect(processed.replayed).toBeNull();
      expect(processed.skipped).toMatch(
        /not sent: call \d \(POST \/payments\/status\/update\) failed here: .*--keep-going/,
      );
      expect(routes().filter((s) => s.endsWith('/payments/processed'))).toEqual([]);
      expect(routes().filter((s) => s.endsWith('/payments/status/update'))).toHaveLength(1);
      const going = await mpay(['replay', har, '--keep-going', '--json'], { env });
      expect(going.stdout + going.stderr).not.toMatch(/not sent: call/);
      expect(routes().filter((s) => s.endsWith('/payments/processed'))).toHaveLength(1);
    } finally {
      await fwd.close();
    }
  });
});
