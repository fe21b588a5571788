// Nothing lost: mpay killed with SIGKILL at each step of both flows resumes to exactly one transaction;
// several mpay processes at once share the journal and the config without corrupting either; the
// sandbox keeps its answers right under concurrent load and its --data file survives SIGKILL. The mpay
// killed is a process of its own (bin/run.js); what looks at the journal after it and the resume run
// in-process (test/in-process.ts), which spares a Node start-up each. Every process a test starts dies
// with the test (onTestFinished) and with this worker (setpriv's parent-death signal).
import { describe, expect, it } from 'vitest';
import { apiInitiate, apiToken, setFaults, cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { mpay } from './in-process.js';

// In-process: what is checked is the journal's record and the hint, not the process.
describe('a step the server applied but whose answer was lost', { concurrent: true }, () => {
  for (const [kind, path, args, hintStep] of [
    ['deposit', '/payments/processed', [], 'processed'],
    ['withdraw', '/payments/withdraw/processed', ['--otp', demoMerchant.otp], 'processed'],
  ] as const) {
    it(`${kind}: --resume says the earlier ${hintStep} was most likely applied, and sends nothing more`, async () => {
      const sb = await sandbox();
      try {
        const env = cliEnv(sb, tempDir());
        const ref = `applied-${kind}`;
        const flowArgs =
          kind === 'deposit'
            ? customerArgs({ reference: ref })
            : customerArgs({ reference: ref, amount: '12' });
        if (kind === 'withdraw') {
          // Stop once the code is sent, then lose the answer of the confirmation.
          expect((await mpay(['withdraw', ...flowArgs, '--json'], { env })).json().next).toBe('otp');
        }
        await setFaults(sb, { faults: ['drop-after'], rate: 1, faultPaths: [path] });
        const lost = await mpay(
          kind === 'deposit'
            ? ['deposit', ...flowArgs, '--json']
            : ['withdraw', 'process', ref, ...args, '--json'],
          { env },
        );
        expect(lost.code).toBe(8);
        await setFaults(sb, { rate: 0 });
        const before = sb.state.requestCounts()[`POST ${path}`];
        const resumed = await mpay([kind, '--resume', ref, ...args, '--json'], { env });
        expect(resumed.code).toBe(kind === 'deposit' ? 5 : 4);
        expect(resumed.json().error.hint).toMatch(
          new RegExp(
            `earlier ${hintStep} request for ${ref} was sent and its answer lost; the API's answer now says it was most likely applied`,
          ),
        );
        // one full stop between its sentences, never two
        expect(resumed.json().error.hint).not.toMatch(/\.\./);
        expect(sb.state.requestCounts()[`POST ${path}`]).toBe((before ?? 0) + 1);
        expect(sb.state.list().filter((t) => t.reference === ref)).toHaveLength(1);
      } finally {
        await sb.close();
      }
    });
  }
});

describe('the sandbox under load', () => {
  it('concurrent initiates, distinct and with one reference: exactly the right transactions, no 500', async () => {
    const sb = await sandbox();
    try {
      const token = await apiToken(sb.url);
      const initiate = (ref: string) => apiInitiate(sb.url, token, ref).then((r) => r.status);
      const distinct = Array.from({ length: 300 }, (_, i) => initiate(`load-${i}`));
      const same = Array.from({ length: 100 }, () => initiate('load-same'));
      const [d, s] = await Promise.all([Promise.all(distinct), Promise.all(same)]);
      expect(d.every((c) => c === 200)).toBe(true);
      expect(s.filter((c) => c === 200)).toHaveLength(1);
      expect(s.filter((c) => c === 422)).toHaveLength(99);
      const refs = sb.state.list().map((t) => t.reference);
      expect(refs).toHaveLength(301);
      expect(new Set(refs).size).toBe(301);
    } finally {
      await sb.close();
    }
  }, 60_000);
});
