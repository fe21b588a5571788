// #33, a second new user on the built round three: each finding as it was met, against a real sandbox over
// HTTP, through the command classes in this process (test/in-process.ts) or the real bin/run.js where the
// printed command itself is run (bash -c, as a person pastes it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import {
  cliEnv,
  customerArgs,
  file,
  loginArgs,
  requestCount,
  requestCounts,
  runPrinted,
  sandbox,
  setFaults,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';
import { Journal } from '../src/journal/journal.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { runPaymentFlow } from '../src/flows/payment.js';
import { resumeFlow } from '../src/flows/resume.js';
import { otpOf, parseInputs } from '../src/flows/inputs.js';
import { interruptionReport } from '../src/flows/interrupted.js';
import { demoClient, loopbackServer, spawnMpay, testGate } from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';
import { Pacer, rateInWords } from '../src/api/rate-limit.js';
import { parseRateLimit, RateLimiter } from '../src/sandbox/pacing.js';

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

describe.concurrent('2. the pace a batch reports is the pace it keeps', () => {
  // At the original figure, on one clock shared by the server's limiter and the client's pacer (no waiting):
  // `--rate-limit 10/min` is ten in a window of a minute; ten answers, then a 429 whose Retry-After ends the
  // window; the pace set is one every 6 s, and each turn after the wait reaches a server that lets it through.
  it('`--rate-limit 10/min`: the pacer says one every 6 s, and the server then sees one every 6 s (one clock, no wait)', () => {
    const figure = parseRateLimit('10/min');
    expect(figure).toEqual({ limit: 10, windowMs: 60_000 });
    let now = 1_000_000;
    const server = new RateLimiter(figure!.limit, figure!.windowMs, () => now);
    const pacer = new Pacer(() => now);
    // the batch's first burst: ten requests 10 ms apart, each let through and answered
    for (let i = 0; i < 10; i++) {
      expect(pacer.turn()).toBe(0);
      expect(server.take()).toBeUndefined();
      pacer.answered();
      now += 10;
    }
    // the eleventh is refused until the window's end, in whole seconds: 60 s less the 100 ms gone, rounded up
    const retryAfter = server.take();
    expect(retryAfter).toBe(60);
    pacer.throttled(retryAfter! * 1000);
    // ten in the span from the first answer to the wait's end (60.1 s): one every 6.01 s, said as 6 s
    expect(1000 / pacer.rate!).toBeCloseTo(6010, 6);
    const said = rateInWords(pacer.rate!);
    expect(said).toBe('one every 6 s');
    const every = Number(/one every ([\d.]+) s/.exec(said)![1]);
    // after the wait, the rest of the batch's requests (the refused one again, then three: 14 in all for four
    // rows) take their turns at once: the first goes when the wait ends, the pace grown by its 1% (three
    // seconds and more since its last change), and each after it a turn later; the server, on the same
    // clock, lets every one through, one every 6 s (6.01 s over 1.01)
    now += retryAfter! * 1000;
    const arrivals = Array.from({ length: 4 }, () => now + pacer.turn());
    expect(arrivals[0]).toBe(now);
    for (const at of arrivals) {
      now = at;
      expect(server.take(), `a turn at +${at - arrivals[0]!} ms`).toBeUndefined();
      pacer.answered();
    }
    expect(server.refused).toBe(1);
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
    for (const gap of gaps) {
      expect(gap).toBeCloseTo(6010 / 1.01, 6);
      expect(gap / 1000).toBeGreaterThan(every * 0.8);
      expect(gap / 1000).toBeLessThan(every * 1.25);
    }
  });

  it('against a limit of 10 in a short window the batch says one every window/10, and the server then sees that pace', async () => {
    // The same run end to end over HTTP, at a window of 15 s instead of a minute (the wait the batch must sit
    // out is the window's): one every 1.5 s. The bounds are the minute's, scaled with the pace: at least the
    // pace the window allows, under 6.5/6 of it (the server's wait is whole seconds, so a little over).
    const windowMs = 15_000;
    const nominal = windowMs / 10 / 1000;
    // every API request as it came, and whether the limit let it through
    const arrivals: { route: string; at: number }[] = [];
    const sb = await sandbox({
      rateLimit: { limit: 10, windowMs },
      onArrival: (route, at) => arrivals.push({ route, at }),
    });
    try {
      const header = 'currency,country,amount,first_name,phone,email,gateway\n';
      const rows = Array.from(
        { length: 4 },
        (_, i) => `GHS,GH,${10 + i},Ama,+23320123${String(4500 + i)},a${i}@b.c,1`,
      );
      const path = file('paced.csv', header + rows.join('\n') + '\n');
      const r = await mpay(['deposit', 'batch', path, '--yes', '--concurrency', '4'], {
        env: cliEnv(sb, tempDir()),
      });
      expect(r.code, r.stderr).toBe(0);
      const said = /requests now go out at most one every ([\d.]+) s/.exec(r.stderr.replace(/\n\s*/g, ' '));
      expect(said, r.stderr).not.toBeNull();
      const every = Number(said![1]);
      expect(every).toBeGreaterThanOrEqual(nominal);
      expect(every).toBeLessThan((nominal * 6.5) / 6);
      // The requests the limit let through after the first refusal's wait: their gaps are the pace kept.
      const refused = new Set(arrivals.flatMap((a, i) => (a.route.startsWith('429 ') ? [i - 1, i] : [])));
      const firstRefusal = arrivals.findIndex((a) => a.route.startsWith('429 '));
      expect(firstRefusal).toBeGreaterThan(0);
      const through = arrivals.filter((a, i) => i > firstRefusal && !refused.has(i)).map((a) => a.at);
      expect(through.length, JSON.stringify(arrivals)).toBeGreaterThanOrEqual(3);
      const gaps = through.slice(2).map((at, i) => (at - through[i + 1]!) / 1000);
      // the first one after the wait goes when the wait ends; each after it waits its turn at the pace said
      for (const gap of gaps) {
        expect(gap).toBeGreaterThan(every * 0.8);
        expect(gap).toBeLessThan(every * 1.25);
      }
      expect(r.stderr.replace(/\n\s*/g, ' ')).toMatch(/requests were paced down to one every [\d.]+ s/);
    } finally {
      await sb.close();
    }
  }, 60_000);
});

describe.concurrent('7. interactive login', () => {
  it.skipIf(without('tmux'))(
    'a wrong API key is asked again (site id defaulting to the one typed); a base URL asked again offers the one typed',
    async () => {
      const t = new Tmux('login-api-key');
      const dir = tempDir();
      const closed = await loopbackServer((_q, r) => r.end());
      const nowhere = closed.url;
      await closed.close();
      try {
        t.start(['login'], { MPAY_CONFIG_DIR: dir, MPAY_KEYRING: 'off' }, undefined, 200);
        await t.waitFor(/Environment/);
        t.keys('Enter');
        await t.waitFor(/Base URL of the sandbox API/);
        t.keys('C-u');
        t.answer(nowhere);
        await t.waitFor(/Merchant key/);
        t.answer(demoMerchant.merchantKey);
        await t.waitFor(/give the base URL again/);
        // asked again with the URL typed as its default, to mend, not the old one
        const again = await t.waitFor(/again\n\? Base URL of the sandbox API.*\n?.*\)/);
        expect(again.slice(again.lastIndexOf('? Base URL'))).toContain(`(${nowhere})`);
        t.keys('C-u');
        t.answer(a.url);
        await t.waitFor(/Site ID/);
        t.answer('1');
        await t.waitFor(/API key/);
        t.answer('ak_wrong');
        const refused = await t.waitFor(/give the site id and API key again \(2 tries left\)/);
        expect(refused).toMatch(/The API key check failed/);
        // the site id asked again, the one typed its default: Enter keeps it
        await t.waitFor(/again[^]*\? Site ID \(1\)/);
        t.keys('Enter');
        await t.waitFor(/again[^]*\? API key/);
        t.answer(demoMerchant.apiKey);
        const screen = await t.waitFor(/EXIT=\d+/);
        expect(screen).toMatch(/EXIT=0/);
        expect(screen).toContain(`Logged in: profile default, sandbox at ${a.url}`);
      } finally {
        t.kill();
      }
    },
    60_000,
  );
});

describe.concurrent('8. the sandbox for a profile, and the doctor in history', () => {
  it('`mpay --profile b sandbox`: its Try line, pasted where no profile is named, logs in profile b', async () => {
    const cfg = tempDir();
    const { child, done } = spawnMpay(['--profile', 'b', 'sandbox', '--port', '0'], { MPAY_CONFIG_DIR: cfg });
    try {
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      await new Promise<void>((resolve) => {
        const look = () => /Ctrl-C stops it/.test(out) && resolve();
        look();
        child.stdout!.on('data', look);
      });
      const line = /^Try: (.*)$/m.exec(out)![1]!;
      expect(line).toContain(' --profile b ');
      const login = await runPrinted(line, { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off' }, 'bash');
      expect(login.code, login.stderr).toBe(0);
      const list = await mpay(['profiles', 'list', '--json'], {
        env: { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off' },
      });
      expect((list.json() as { name: string }[]).map((p) => p.name)).toEqual(['b']);
    } finally {
      child.kill('SIGINT');
      await done;
    }
  });
});

describe('1. a --trace path that cannot be written', () => {
  it('`--trace /sys/x.har` (a folder no file can be made in, root or not) is refused before anything is sent', async () => {
    const env = cliEnv(a, tempDir());
    const before = await requestCounts(a);
    const r = await mpay(['deposit', ...customerArgs(), '--yes', '--trace', '/sys/x.har', '--json'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.json().error.kind).toBe('usage');
    expect(r.json().error.message).toBe(
      'Cannot write the trace to /sys/x.har: the folder /sys is not writable by this user',
    );
    expect(await requestCounts(a)).toEqual(before);
  });
});

describe.concurrent('3. every command mpay prints runs as printed', () => {
  it('an unknown row at a server that is not the profile default: the printed show and resolve act on it where it lives', async () => {
    // the record's server drops the answer of each initiate (it applied it): the row is unknown
    const s = await sandbox({ faults: ['drop-after'], rate: 1, faultPaths: ['/payments/initiate'] });
    try {
      const cfg = tempDir();
      // the profile's own server is sandbox a; the batch goes to s with --base-url
      const login = await mpay(loginArgs('p', a.url), {
        env: {
          MPAY_CONFIG_DIR: cfg,
          MPAY_KEYRING: 'off',
          MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
          MPAY_API_KEY: demoMerchant.apiKey,
        },
      });
      expect(login.code, login.stderr).toBe(0);
      const env = { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off', MPAY_RETRY_BASE_MS: '20' };
      const rows = file(
        'unknown.csv',
        'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,12,Ama,+233201234567,a@b.c,1\n',
      );
      const first = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url], { env });
      expect(first.code, first.stderr).toBe(10);
      const again = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url, '--json'], { env });
      expect(again.code, again.stderr).toBe(10);
      const text = again.stdout + again.stderr;
      // every command in backticks is one to paste: none has a word for the person to replace but a <placeholder>
      for (const c of [...(first.stderr + text).matchAll(/`(mpay [^`]+)`/g)].map((m) => m[1]!))
        expect(c.replace(/<[^>]+>/g, ''), c).not.toMatch(/\bREF\b|\|/);
      const backticked = [...text.matchAll(/`(mpay [^`]+)`/g)].map((m) => m[1]!);
      const show = backticked.find((c) => c.startsWith('mpay history show '));
      const resolve = backticked.find((c) => c.startsWith('mpay history resolve '));
      expect(show, text).toBeDefined();
      expect(resolve, text).toBeDefined();
      const reference = /history show (\S+)/.exec(show!)![1]!;
      // pasted where the variables point at yet another server, and the profile at its own default
      const elsewhere = { ...env, MPAY_BASE_URL: 'http://127.0.0.1:9' };
      const shown = await runPrinted(`${show!} --json`, elsewhere, 'bash');
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout).reference).toBe(reference);
      // the printed line, with its placeholder filled as the help offers: --check asks the record's server
      // (the faults off now), which refuses the same reference as taken: the first initiate landed
      await setFaults(s, { rate: 0 });
      const checks = await requestCount(s, 'POST /payments/initiate');
      const line = resolve!.replace('--as <not-sent|landed|abandoned>', '--check');
      const settled = await runPrinted(`${line} --json`, elsewhere, 'bash');
      expect(settled.code, settled.stderr).toBe(0);
      expect(JSON.parse(settled.stdout)).toMatchObject({ reference, as: 'landed', checked: 'taken' });
      expect(await requestCount(s, 'POST /payments/initiate')).toBe(checks + 1);
      const after = await mpay(['history', 'show', reference, '--json'], { env });
      expect(JSON.stringify(after.json()), after.stdout).toContain('landed');
      // landed, not finished by mpay (#47): not done, exit 10, until a person decides with the printed --as
      const landed = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url], { env });
      expect(landed.code, landed.stderr).toBe(10);
      const decide = [...landed.stderr.matchAll(/`(mpay history resolve \S+ --as landed [^`]+)`/g)][0]![1]!;
      expect((await runPrinted(decide, elsewhere, 'bash')).code).toBe(0);
      const last = await mpay(['deposit', 'batch', rows, '--yes', '--base-url', s.url], { env });
      expect(last.code, last.stderr).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe.concurrent('4. unknown rows in history', () => {
  it('`history --status unknown` finds the transaction whose answer was lost, and the table says unknown', async () => {
    const s = await sandbox({ faults: ['drop-after'], rate: 1, faultPaths: ['/payments/initiate'] });
    try {
      const env = cliEnv(s, tempDir());
      const lost = await mpay(['deposit', ...customerArgs(), '--yes', '--json'], { env });
      expect(lost.code, lost.stderr).toBe(8);
      const unknown = await mpay(['history', '--status', 'unknown', '--json'], { env });
      expect(unknown.code, unknown.stderr).toBe(0);
      const rows = unknown.json() as { reference: string }[];
      expect(rows).toHaveLength(1);
      const table = await mpay(['history'], { env, width: 120 });
      const line = table.stdout.split('\n').find((l) => l.includes(rows[0]!.reference));
      expect(line, table.stdout).toMatch(/\bunknown\b/);
      // settled, it is unknown no more
      const settled = await mpay(['history', 'resolve', rows[0]!.reference, '--as', 'landed'], { env });
      expect(settled.code, settled.stderr).toBe(0);
      expect((await mpay(['history', '--status', 'unknown', '--json'], { env })).json()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe.concurrent('5. history show: the text and --json say the same next step', () => {
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

describe("8. doctor's key checks in history", () => {
  it('are journaled but left out of `mpay history` unless --probes; the table says how many and how', async () => {
    const env = cliEnv(a, tempDir());
    const before = await requestCount(a, 'POST /payments/withdraw/initiate');
    const doctor = await mpay(['doctor', '--check-api-key', '--json'], { env });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    // the check went out (a withdraw initiate of credentials only), journaled
    expect(await requestCount(a, 'POST /payments/withdraw/initiate')).toBe(before + 1);
    const pay = await mpay(['deposit', ...customerArgs(), '--yes', '--json'], { env });
    expect(pay.code, pay.stderr).toBe(0);
    const list = (await mpay(['history', '--json'], { env })).json() as { kind: string; probe?: true }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.kind).toBe('deposit');
    const all = (await mpay(['history', '--probes', '--json'], { env })).json() as { probe?: true }[];
    expect(all.filter((r) => r.probe)).toHaveLength(1);
    const table = await mpay(['history'], { env, width: 120 });
    expect(table.stderr).toContain(
      '1 API-key check of doctor or login left out, none of which made anything; --probes shows them.',
    );
  });
});
