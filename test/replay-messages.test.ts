// A server whose messages name what the request sent (flows/replay/replay.ts): the transaction's reference
// and hash token, inside a word where no pattern of a reference or a token finds them, and the one-time
// code. A replay of a trace recorded there answers as recorded (each run's own values are no difference),
// and the code, from --otp or typed at the prompt, never reaches the output. The sandbox behind a
// forwarder that rewrites each answer's message.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { forwarder } from './forwarder.js';
import { mpay, optionsOf } from './in-process.js';
import { runReplay, type ReplayOptions } from '../src/commands/replay/run.js';
import { Factory } from '../src/factory.js';
import { ScriptedPrompter } from '../src/flows/prompter.js';
import { memoryIO } from '../src/io/io.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let sb: Awaited<ReturnType<typeof sandbox>>;
let server: Awaited<ReturnType<typeof forwarder>>;
beforeAll(async () => {
  sb = await sandbox();
  server = await forwarder(sb.url, { answer: naming });
});
afterAll(async () => {
  await server.close();
  await sb.close();
});

const parse = (text: string) => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** The answer with a message naming the request's reference, hash token and code, and the answer's hash. */
function naming(route: string, request: string, text: string): string {
  const body = parse(text);
  if (!route.startsWith('POST /restapi/v1/payments/') || typeof body.message !== 'string') return text;
  const sent = parse(request);
  const data = (body.data ?? {}) as Record<string, unknown>;
  const named = [
    sent.customer_transaction_id && `tx_${String(sent.customer_transaction_id)}`,
    sent.hash_token && `of tx_${String(sent.hash_token)}`,
    data.has_token && `as tx_${String(data.has_token)}`,
    sent.otp && `code ${String(sent.otp)} accepted`,
  ].filter(Boolean);
  return JSON.stringify({ ...body, message: `${body.message} (${named.join(', ')})` });
}

/** A deposit's trace, recorded on the naming server under a reference no pattern knows: initiate, process. */
async function depositTrace(reference: string): Promise<string> {
  const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: server.url });
  const t = join(tempDir(), `${reference}.har`);
  const d = await mpay(
    ['deposit', 'initiate', ...customerArgs({ reference, gateway: '' }), '--trace', t, '--json'],
    { env },
  );
  expect(d.code, d.stderr).toBe(0);
  const p = await mpay(['deposit', 'process', reference, '--trace', t, '--json'], { env });
  expect(p.code, p.stderr).toBe(0);
  return t;
}

it("the messages naming the transaction's reference and hash token: answered as recorded (exit 0)", async () => {
  const trace = await depositTrace('rp-named-1');
  const recorded = readFileSync(trace, 'utf8');
  // the recorded messages name the recorded reference and hash token
  expect(recorded).toContain('tx_rp-named-1');
  expect(recorded).toMatch(/of tx_[0-9a-f]{64}/);
  const r = await mpay(['replay', trace, '--json'], {
    env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: server.url }),
  });
  const calls = r.json() as {
    path: string;
    same: boolean;
    reference?: string;
    replayed: { message: string };
    differences: unknown[];
  }[];
  const initiate = calls.find((c) => c.reference)!;
  // the new answers name the new reference and hash token
  expect(initiate.replayed.message).toContain(`tx_${initiate.reference}`);
  expect(calls.map((c) => [c.path, c.differences])).toEqual(calls.map((c) => [c.path, []]));
  expect(r.code, r.stderr).toBe(0);
});

/** A withdrawal's trace, recorded on the naming server: initiate, status update, the code sent, processed. */
async function withdrawTrace(): Promise<string> {
  const t = join(tempDir(), 'withdraw.har');
  const w = await mpay(
    [
      'withdraw',
      ...customerArgs({ country: '', phone: '+233209876540' }),
      '--otp',
      demoMerchant.otp,
      '--trace',
      t,
      '--json',
    ],
    { env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: server.url }) },
  );
  expect(w.code, w.stderr).toBe(0);
  return t;
}

it('the code from --otp, named in an answer: never in the output, and no difference', async () => {
  const trace = await withdrawTrace();
  expect(readFileSync(trace, 'utf8')).not.toContain(demoMerchant.otp);
  const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: server.url });
  for (const args of [['--json'], []]) {
    const r = await mpay(['replay', trace, '--otp', demoMerchant.otp, ...args], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // the answers beside each other in --json; the text shows a message only where the call differs
    if (args.length) expect(r.stdout).toContain('code *** accepted');
    expect(r.stdout + r.stderr).not.toContain(demoMerchant.otp);
  }
});

it('the code typed at the prompt: sent without its blanks, never shown', async () => {
  const trace = await withdrawTrace();
  const r = await mpay(['replay', trace, '--json'], {
    env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: server.url }),
    tty: true,
    input: ` ${demoMerchant.otp} \n`,
    width: 200,
  });
  // a code sent with its blanks would be refused by the server: exit 13
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stderr).toContain('The one-time code for the withdrawal the trace confirms');
  expect(r.stdout).toContain('code *** accepted');
  expect(r.stdout + r.stderr).not.toContain(demoMerchant.otp);
  const sent = server.seen.filter((s) => s.route.endsWith('/payments/withdraw/processed')).at(-1)!;
  expect(JSON.parse(sent.body).otp).toBe(demoMerchant.otp);
});

it('the prompt takes a code of 4 to 8 digits only, blanks around it aside', async () => {
  const trace = await withdrawTrace();
  const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: server.url });
  const { options } = await optionsOf(['replay', trace, '--json'], env);
  const io = memoryIO({ env, tty: true, width: 200 });
  const f = new Factory(io, {}, 'mpay-test', env);
  const typed = ['12', '123', '1234', ' 12345678 ', '123456789', 'ab1234', '1234ab', '12 34', ''];
  let verdicts: (true | string)[] = [];
  const prompter = new (class extends ScriptedPrompter {
    // what the person sees for each code typed: accepted, or asked again with the reason
    override async password(o: { message: string; validate?: (v: string) => true | string }) {
      verdicts = typed.map((t) => o.validate!(t));
      return super.password(o);
    }
  })([demoMerchant.otp]);
  f.prompter = () => Promise.resolve(prompter);
  await runReplay(options as ReplayOptions, f);
  expect(io.exitCode, io.stdoutText() + io.stderrText()).toBe(0);
  expect(prompter.asked).toEqual(['The one-time code for the withdrawal the trace confirms']);
  const no = 'digits, as sent to the customer e-mail';
  expect(verdicts).toEqual([no, no, true, true, no, no, no, no, no]);
});
