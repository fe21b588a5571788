import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  file,
  journalEvents,
  ndjson,
  requestCount,
  run,
  sandbox,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

describe('several mpay processes writing one journal at once', () => {
  it('two loops of single deposits, a batch and `mpay run`: every record once, whole, nothing lost or doubled', async () => {
    const cfg = tempDir();
    const env = cliEnv(sb, cfg);
    const loop = async (prefix: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await run(
          ['deposit', ...customerArgs({ reference: `${prefix}-${i}` }), '--no-input', '--json'],
          {
            env,
          },
        );
        expect(r.code, r.stderr).toBe(0);
      }
    };
    const rows = Array.from(
      { length: 12 },
      (_, i) => `GHS,GH,${20 + i},Esi,,+2332012345${String(i).padStart(2, '0')},esi${i}@example.org,1`,
    );
    const batchFile = file(
      'together.csv',
      ['currency,country,amount,first_name,last_name,phone,email,gateway', ...rows].join('\n'),
    );
    const steps = Array.from(
      { length: 4 },
      (_, i) => `  - name: step ${i}
    run: deposit initiate
    flags: { currency: GHS, country: GH, amount: "10", first-name: Ama, phone: "+233201234567", email: a@example.com, reference: run-${i} }
`,
    );
    const scenario = file('together.yaml', `name: together\nsteps:\n${steps.join('')}`);
    const initiatesBefore = await requestCount(sb, 'POST /payments/initiate');
    const [batch, scenarioRun] = await Promise.all([
      run(['deposit', 'batch', batchFile, '--concurrency', '4', '--yes', '--json'], { env }),
      run(['run', scenario], { env }),
      loop('loop-a', 5),
      loop('loop-b', 5),
    ]);
    expect(batch.code, batch.stderr).toBe(0);
    expect(scenarioRun.code, scenarioRun.stderr).toBe(0);
    const batchRefs = ndjson<{ reference: string }>(batch.stdout).map((x) => x.reference);
    expect(new Set(batchRefs).size).toBe(12);

    const events = journalEvents(cfg);
    const expected = [
      ...Array.from({ length: 5 }, (_, i) => `loop-a-${i}`),
      ...Array.from({ length: 5 }, (_, i) => `loop-b-${i}`),
      ...Array.from({ length: 4 }, (_, i) => `run-${i}`),
      ...batchRefs,
    ].sort();
    expect([...new Set(events.map((e) => e.reference))].sort()).toEqual(expected);
    // each initiate journaled once as sent and once as answered: nothing lost, nothing doubled
    for (const reference of expected) {
      const initiate = events.filter((e) => e.reference === reference && e.step === 'initiate');
      expect(
        initiate.map((e) => e.outcome),
        reference,
      ).toEqual(['sent', 'ok']);
    }
    // every record whole in history, and the server made exactly these
    const history = await mpay(['history', '--all', '--json'], { env });
    expect(history.json()).toHaveLength(expected.length);
    expect(await requestCount(sb, 'POST /payments/initiate')).toBe(initiatesBefore + expected.length);
  });
});
