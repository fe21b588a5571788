// The Factory's one way of sharing a run between its steps (forIO, a step of `mpay run`): what a run makes
// once (the store, the context, the trace, the money gate) is made by the run's own Factory, whichever step
// asks first, and is the same for every step; a failure is not kept.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
});
