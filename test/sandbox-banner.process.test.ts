// `mpay sandbox`'s banner lists every setting, and --log-requests logs a line a request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cliEnv, run, sandbox, spawnMpay, tempDir } from './helpers.js';

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
  it('the banner lists every setting, and --log-requests logs a line a request', async () => {
    const data = join(tempDir(), 'state.json');
    const { child, done } = spawnMpay(
      [
        'sandbox',
        '--port',
        '0',
        '--latency',
        '5',
        '--rate-limit',
        '600/min',
        '--fault',
        '500',
        '--fault-rate',
        '0',
        '--fault-seed',
        '7',
        '--data',
        data,
        '--log-requests',
      ],
      {},
    );
    try {
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (err += d));
      const url = await new Promise<string>((resolve) => {
        const look = () => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m && /Ctrl-C stops it/.test(out)) resolve(m[1]!);
        };
        child.stdout!.on('data', look);
      });
      expect(out).toMatch(/latency: +5 ms before each API request/);
      expect(out).toMatch(/rate limit: +600\/min, then 429 with Retry-After/);
      // no slow fault: no word of how long a slow answer waits
      expect(out).toMatch(/faults: +500 on 0% of requests\n/);
      expect(out).not.toContain('slow answer');
      expect(out).toMatch(/fault seed: +7/);
      expect(out).toContain(`data:         the demo seed, saved in ${data}`);
      expect(out).toMatch(/request log: +on/);
      const c = await run(['countries', '--json'], { env: cliEnv({ url }, tempDir()) });
      expect(c.code, c.stderr).toBe(0);
      await new Promise<void>((resolve) => {
        const look = () => /GET \/restapi\/v1\/public\/countries 200 \d+ ms/.test(err) && resolve();
        look();
        child.stderr!.on('data', look);
      });
    } finally {
      // ended even when an expectation failed: no sandbox outlives the test
      child.kill('SIGINT');
      await done;
    }
  });
});
