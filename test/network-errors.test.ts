// How a network failure is named: a host that does not resolve, with the base URL to check.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox({ latencyMs: 10 });
});
afterAll(() => sb.close());

it.concurrent(
  'a host that does not resolve is said so, with the base URL to check, not "raise --timeout"',
  async () => {
    const r = await mpay(['countries', '--json', '--base-url', 'https://api.mpay-test.invalid'], {
      env: cliEnv(undefined, tempDir()),
    });
    expect(r.code).toBe(8);
    expect(r.json().error.message).toMatch(/host api\.mpay-test\.invalid not found$/);
    expect(r.json().error.hint).toMatch(
      /^The host api\.mpay-test\.invalid was not found: check the base URL/,
    );
  },
);
