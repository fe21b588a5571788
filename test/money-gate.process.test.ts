// The money gate at the wire (issue: money crosses one gate): the sender sends none of the six money
// endpoints without a ticket of the run's gate, however the request was built or its path spelled; live
// is the server's; `mpay api`, doctor and replay pass the gate; a batch row's reference names one payment;
// locks know a gone holder and a lost lock; a journal that fails after a request left makes it unknown.
// Each test runs against a strict sandbox (test/strict.ts), which fails on any request not declared.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdLock, lockName } from '../src/journal/locks.js';
import { cliEnv, proxyCli, tempDir } from './helpers.js';
import { mpay as run } from './in-process.js';
import { strictSandbox } from './strict.js';

describe('locks know their holder', () => {
  it('a holder that is gone (same host and boot, its process dead) is taken over at once', async () => {
    const dir = tempDir();
    const name = lockName('transaction', 'x');
    // A process that held the lock and was killed -9: its lock folder is fresh, its owner file names it.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid!;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    mkdirSync(join(dir, 'locks', `${name}.lock`), { recursive: true });
    const owner = {
      pid,
      start,
      host: (await import('node:os')).hostname(),
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidns: (await import('node:fs')).readlinkSync('/proc/self/ns/pid'),
      since: new Date().toISOString(),
      token: 'dead',
    };
    writeFileSync(join(dir, 'locks', `${name}.owner`), JSON.stringify(owner));
    // Alive: refused at once, naming the holder.
    await expect(holdLock(dir, name, 'the deposit x')).rejects.toThrow(
      new RegExp(`Another mpay process \\(pid ${pid} on .*, since .*\\) is running the deposit x`),
    );
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const held = await holdLock(dir, name, 'the deposit x');
    held.check();
    await held();
  });
});

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
        expect(r.code, r.stdout + r.stderr).toBe(16);
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
