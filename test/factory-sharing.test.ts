// The Factory's one way of sharing a run between its steps (forIO, a step of `mpay run`): what a run makes
// once (the store, the context, the trace, the money gate) is made by the run's own Factory, whichever step
// asks first, and is the same for every step; a failure is not kept.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Factory } from '../src/factory.js';
import { memoryIO } from '../src/io/io.js';
import { tempDir } from './helpers.js';

describe("the Factory's sharing between a run's steps", () => {
  it("a step asking first gets what the run makes once, made by the run: its warnings on the run's IO", async () => {
    const dir = tempDir();
    // a damaged token cache: the store says so once, as it is made
    writeFileSync(join(dir, 'tokens.json'), '{"not json', { mode: 0o600 });
    const environ = { MPAY_CONFIG_DIR: dir, MPAY_MERCHANT_KEY: 'mk_$(x)`y`', MPAY_SITE_ID: '1' };
    const runIO = memoryIO({ env: environ });
    const stepIO = memoryIO({ env: environ });
    const f = new Factory(runIO, {}, 'mpay-test', environ);
    const step = f.forIO(stepIO);
    const again = step.forIO(memoryIO({ env: environ }));

    const stepContext = await step.context();
    expect(await f.context()).toBe(stepContext);
    expect(await again.context()).toBe(stepContext);
    expect(await step.store()).toBe(await f.store());
    expect(await step.gate()).toBe(await f.gate());
    expect(await again.gate()).toBe(await f.gate());
    expect(step.secrets).toBe(f.secrets);
    expect([f.isStep, step.isStep, again.isStep]).toEqual([false, true, true]);

    const damaged = /the token cache .*tokens\.json was damaged/g;
    expect(runIO.stderrText().match(damaged)).toHaveLength(1);
    expect(stepIO.stderrText()).toBe('');
  });

  it('a context that failed is made again: a profile saved since is found', async () => {
    const dir = tempDir();
    const environ = { MPAY_CONFIG_DIR: dir };
    const f = new Factory(memoryIO({ env: environ }), { profile: 'acme' }, 'mpay-test', environ);
    const step = f.forIO(memoryIO({ env: environ }));
    const store = await f.store();
    await store.saveProfile('other', { env: 'sandbox' });
    // --profile acme, not stored where another is: refused as a mistyped name
    await expect(step.context()).rejects.toThrow('No profile named "acme"');
    await expect(f.context()).rejects.toThrow('No profile named "acme"');
    await store.saveProfile('acme', { env: 'stage', baseUrls: { stage: 'https://stage.example.com' } });
    const ctx = await step.context();
    expect(ctx).toMatchObject({ profileName: 'acme', env: 'stage', baseUrl: 'https://stage.example.com' });
    expect(await f.context()).toBe(ctx);
  });

  // A scenario of 100,000 steps makes a client a step (its got instance, its options): a run that kept
  // them all grew by one each step (issue 46 item 7). What the run keeps of them is the servers a proxy
  // said are live.
  it("keeps none of its steps' clients once each step is done with its own", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
    const dir = tempDir();
    const environ = { MPAY_CONFIG_DIR: dir, MPAY_MERCHANT_KEY: 'mk_test', MPAY_SITE_ID: '1' };
    const f = new Factory(memoryIO({ env: environ }), {}, 'mpay-test', environ);
    const steps = 200;
    const made: WeakRef<object>[] = [];
    for (let i = 0; i < steps; i++)
      made.push(new WeakRef(await f.forIO(memoryIO({ env: environ })).client()));
    // a WeakRef holds its object until the job that made it ends
    await turn();
    gc();
    expect(made.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });

  it("a proxy's word that its server is live, heard by one step's client, holds for the run's gate", async () => {
    const proxy = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'mpay-upstream': 'live' });
      res.end('{"status":true,"data":[]}');
    });
    await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const dir = tempDir();
      const environ = { MPAY_CONFIG_DIR: dir, MPAY_MERCHANT_KEY: 'mk_test', MPAY_SITE_ID: '1' };
      const f = new Factory(memoryIO({ env: environ }), { baseUrl: url }, 'mpay-test', environ);
      const gate = await f.gate();
      expect(gate.live).toBe(false);
      const other = await f.forIO(memoryIO({ env: environ })).client();
      const step = await f.forIO(memoryIO({ env: environ })).client();
      await step.raw({ method: 'GET', path: 'merchant/currencies', encoding: 'json', bearer: false });
      expect(other.upstreamLive).toBe(false);
      expect(gate.live).toBe(true);
      expect(gate.liveHeader).toContain('the live server behind the mpay proxy at');
      // another server's gate in the same run is not told so
      expect((await f.gateFor('http://127.0.0.2:9', 'sandbox', undefined)).live).toBe(false);
    } finally {
      await new Promise((ok) => proxy.close(ok));
    }
  });
});
