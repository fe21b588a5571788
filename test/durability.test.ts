// Nothing lost: mpay killed with SIGKILL at each step of both flows resumes to exactly one transaction;
// several mpay processes at once share the journal and the config without corrupting either; the
// sandbox keeps its answers right under concurrent load and its --data file survives SIGKILL. The mpay
// killed is a process of its own (bin/run.js); what looks at the journal after it and the resume run
// in-process (test/in-process.ts), which spares a Node start-up each. Every process a test starts dies
// with the test (onTestFinished) and with this worker (setpriv's parent-death signal).
import { describe, expect, it } from 'vitest';
import { apiInitiate, apiToken, sandbox } from './helpers.js';

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
