// How a settlement is worded when its gateway names no payment method.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it.concurrent(
  'a settlement whose gateway has no payment method names the gateway, never "via ;"',
  async () => {
    const alt = await sandbox({ seed: 'alt' });
    try {
      const r = await mpay(
        ['deposit', ...customerArgs({ currency: 'GHS', country: 'GH', gateway: '14', reference: 'via-1' })],
        { env: cliEnv(alt, tempDir()) },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/ via Airtel Money/);
      expect(r.stderr).not.toMatch(/via ;|via $/m);
    } finally {
      await alt.close();
    }
  },
);
