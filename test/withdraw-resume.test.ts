// `withdraw --resume` after the code was sent: the phone it was requested with, nothing asked again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { sandbox, tempDir } from './helpers.js';
import { Journal } from '../src/journal/journal.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { runPaymentFlow } from '../src/flows/payment/payment.js';
import { resumeFlow } from '../src/flows/payment/resume.js';
import { otpOf, parseInputs } from '../src/flows/payment/inputs.js';
import { interruptionReport } from '../src/flows/standing.js';
import { demoClient, testGate } from './helpers.js';

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

/** A person at the prompts who presses Ctrl-C at the one-time code's (inquirer's ExitPromptError). */
class CtrlCAtCode extends ScriptedPrompter {
  // a gateway is chosen by its id, the first word of its choice
  override async select<T>(o: { message: string; choices: Array<{ name: string; value: T }> }): Promise<T> {
    return super.select({ ...o, choices: o.choices.map((c) => ({ ...c, name: c.name.split(/\s+/)[0]! })) });
  }

  override async password(o: { message: string }): Promise<string> {
    this.asked.push(o.message);
    throw Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' });
  }
}

describe.concurrent('6. withdraw --resume after the code was sent', () => {
  it('confirms with the phone the code was requested with, asks nothing again, and the Ctrl-C said the code was sent', async () => {
    const journal = new Journal(tempDir(), 'default', 'sandbox');
    const deps = (prompter: ScriptedPrompter) => ({
      client: demoClient(a.url),
      journal,
      prompter,
      env: 'sandbox',
      gate: testGate('sandbox', { prompter }),
    });
    const inputs = parseInputs({
      currency: 'GHS',
      country: 'GH',
      amount: '20',
      firstName: 'Kofi',
      email: 'kofi@example.com',
      reference: 'resume-phone-1',
      // the payment phone, another than the customer's: a withdrawal asks it no more (#47), a flag gives it
      phoneNumber: '+233209876543',
    });
    // the last name, the customer's phone, the gateway, and no confirmation e-mail
    const first = new CtrlCAtCode(['', '+233201234567', '3', '']);
    const cancelled = await runPaymentFlow('withdraw', inputs, deps(first)).catch((e: unknown) => e);
    expect(first.asked, String(cancelled)).not.toContain('Phone number for the payment');
    expect(first.asked.at(-1)).toMatch(/^One-time code sent to kofi@example.com/);
    expect(cancelled).toMatchObject({
      kind: 'cancelled',
      message: expect.stringMatching(
        /the code was sent to kofi@example\.com, and nothing was sent after it$/,
      ),
      hint: expect.stringContaining('mpay withdraw --resume resume-phone-1 --otp-stdin'),
    });
    expect((cancelled as Error).message).not.toMatch(/nothing more was sent/);
    // the resume with the code: no answer left to give, so any question fails the test
    const none = new ScriptedPrompter([]);
    const r = await resumeFlow('withdraw', 'resume-phone-1', { otp: otpOf(demoMerchant.otp) }, deps(none));
    expect(none.asked).toEqual([]);
    expect(r.status).toBe('pending');
    const sent = journal
      .eventsOf('resume-phone-1')
      .filter((e) => e.outcome === 'sent' && (e.step === 'otp' || e.step === 'processed'))
      .map((e) => [e.step, e.data?.phone_number]);
    expect(sent).toEqual([
      ['otp', '+233209876543'],
      ['processed', '+233209876543'],
    ]);
    // a flag naming another phone is refused, not sent
    const other = await resumeFlow(
      'withdraw',
      'resume-phone-1',
      { otp: otpOf(demoMerchant.otp), phoneNumber: '+233201234567' },
      deps(new ScriptedPrompter([])),
    ).catch((e: unknown) => e);
    expect(other).toMatchObject({ kind: expect.stringMatching(/usage/) });
  });

  it('the Ctrl-C report after the code request says the code was sent', () => {
    const text = interruptionReport({
      at: '2026-11-24T00:00:00.000Z',
      reference: 'wd-1',
      kind: 'withdraw',
      step: 'otp',
      outcome: 'ok',
    });
    expect(text).toMatch(/interrupted after the one-time code of wd-1 was sent; nothing was sent after it/);
    expect(text).toContain('mpay withdraw --resume wd-1 --otp-stdin');
  });
});
