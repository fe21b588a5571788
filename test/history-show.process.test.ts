// `history show`: the text and --json give the same next step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, requestCount, runPrinted, sandbox, setFaults, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let a: Awaited<ReturnType<typeof sandbox>>;
// Sections 2 to 8 share nothing that one counts (each has its own folders, and the servers it counts are its
// own), so they run at once, in two groups: the batch's paced waits (2) beside the sections whose work is in
// processes of their own (7, 8), so that its pace is kept by a worker with little else to do; then the
// in-process ones (3 to 6). Section 1 (every request to sandbox a counted) runs between the groups, the
// doctor's count of a's key checks after them.
beforeAll(async () => {
  a = await sandbox();
});
afterAll(async () => {
  await a?.close();
});

describe.concurrent('5. history show: the text and --json say the same next step', () => {
  it('a withdrawal waiting for its code: next is otp in both, and the resume, pasted, finishes it with the code on stdin', async () => {
    const env = cliEnv(a, tempDir());
    const started = await mpay(['withdraw', ...customerArgs({ reference: 'show-otp-1' }), '--json'], { env });
    expect(started.json().next, started.stderr).toBe('otp');
    const json = (await mpay(['history', 'show', 'show-otp-1', '--json'], { env })).json();
    const text = (await mpay(['history', 'show', 'show-otp-1'], { env, width: 400 })).stdout;
    expect(json).toMatchObject({
      next: 'otp',
      resume: `mpay withdraw --resume show-otp-1 --otp-stdin --profile default --env sandbox --base-url ${a.url}`,
      message: 'the one-time code was sent to the customer: the confirmation with it finishes the withdrawal',
    });
    expect(text).toContain(json.resume);
    const done = await runPrinted(`echo 123456 | ${json.resume} --json`, {
      ...env,
      MPAY_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(done.code, done.stderr).toBe(0);
    const after = (await mpay(['history', 'show', 'show-otp-1', '--json'], { env })).json();
    expect(after).toMatchObject({ status: 'pending', next: null, resume: null });
  });
  it('after a lost initiate settled as not sent, both give the resume command and the same words', async () => {
    const s = await sandbox({ faults: ['drop-after'], rate: 1, faultPaths: ['/payments/initiate'] });
    try {
      const env = cliEnv(s, tempDir());
      const lost = await mpay(['deposit', ...customerArgs(), '--yes', '--json'], { env });
      expect(lost.code, lost.stderr).toBe(8);
      const [rec] = (await mpay(['history', '--json'], { env })).json() as { reference: string }[];
      const ref = rec!.reference;
      expect((await mpay(['history', 'resolve', ref, '--as', 'not-sent'], { env })).code).toBe(0);
      const json = (await mpay(['history', 'show', ref, '--json'], { env })).json();
      const text = (await mpay(['history', 'show', ref], { env, width: 400 })).stdout;
      // true: --resume sends the initiate again with the same reference
      expect(json.resume).toBe(
        `mpay deposit --resume ${ref} --profile default --env sandbox --base-url ${s.url}`,
      );
      expect(json.message).toMatch(/settled by hand as not sent: the next step is the initiate again/);
      expect(json.next).toBeNull();
      // the summary is a key/value table: │ key │ value │
      const field = (name: string) =>
        text
          .split('\n')
          .map((l) => l.split('│').map((c) => c.trim()))
          .find((cells) => cells[1] === name)?.[2];
      expect(field('resume'), text).toBe(json.resume);
      expect(field('message'), text).toBe(json.message);
      expect(field('next'), text).toBeUndefined();
      // and the resume does what it says: the initiate goes again (the faults off now)
      await setFaults(s, { rate: 0 });
      const before = await requestCount(s, 'POST /payments/initiate');
      await runPrinted(
        `${json.resume} --gateway 1 --yes --json`,
        { ...env, MPAY_BASE_URL: 'http://127.0.0.1:9' },
        'bash',
      );
      expect(await requestCount(s, 'POST /payments/initiate')).toBe(before + 1);
    } finally {
      await s.close();
    }
  });
});
