import { describe, expect, it } from 'vitest';
import { cliEnv, proxyCli, tempDir } from './helpers.js';
import { mpay as run } from './in-process.js';
import { strictSandbox } from './strict.js';

describe('mpay proxy --live in front of a server', () => {
  it("answers 428 to an unconfirmed money request and forwards nothing; a caller's own confirmation header counts for nothing", async () => {
    const sb = await strictSandbox();
    sb.allowReads();
    const proxy = await proxyCli(sb.url, undefined, {}, ['--live']);
    try {
      const url = proxy.url;
      const cfg = tempDir();
      const env = cliEnv(undefined, cfg, { MPAY_BASE_URL: url });
      const send = (ref: string, extra: string[]) =>
        run(
          [
            'api',
            'POST',
            'payments/initiate',
            '--credentials',
            ...['-f', 'currency_code=GHS', '-f', 'country_code=GH', '-F', 'amount=10'],
            '-f',
            'customer_first_name=Ama',
            '-f',
            'customer_phone=+233201234567',
            '-f',
            'customer_email=ama@example.com',
            '-f',
            `customer_transaction_id=${ref}`,
            ...extra,
          ],
          { env },
        );
      // the header mpay sets for a confirmed ticket, written by the caller: dropped at the sender
      for (const [i, h] of ['mpay-live-confirmed: yes', 'MPAY-Live-Confirmed: yes'].entries()) {
        const r = await send(`px-1-${i}`, ['-H', h]);
        expect(r.code, r.stdout + r.stderr).toBe(2);
        expect(r.stderr).toMatch(/Nothing was sent: .*live server behind the mpay proxy/);
      }
      sb.verify();
      sb.expect('POST /payments/initiate');
      const ok = await send('px-2', ['--yes']);
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      sb.verify();
    } finally {
      await proxy.stop();
      await sb.close();
    }
  });
});
