// `mpay demo`: a deposit and a withdraw end to end against a sandbox started in this process, with a
// journal in a temporary folder: no account, no configuration, no network.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Factory } from '../../factory.js';
import type { FlowDeps, FlowResult } from '../../flows/types.js';
import { fitWidth, printResult } from '../../ui/print.js';
import { fromFlowResult } from '../../ui/envelope.js';
import { transactionSummary } from '../../ui/summary.js';

export async function runDemo(opts: { json?: boolean }, f: Factory): Promise<void> {
  const { startSandbox } = await import('../../sandbox/server.js');
  const { demoMerchant } = await import('../../sandbox/seed.js');
  const { ScriptedPrompter } = await import('../../flows/prompter.js');
  const { runPaymentFlow } = await import('../../flows/payment/payment.js');
  const dir = mkdtempSync(join(tmpdir(), 'mpay-demo-'));
  const sandboxLog: string[] = [];
  const sb = await startSandbox({ port: 0, host: '127.0.0.1', log: (l) => sandboxLog.push(l) });
  try {
    f.io.note(
      `Sandbox on ${sb.url} (demo merchant ${demoMerchant.merchantKey}, site ${demoMerchant.siteId})`,
    );
    const base = await demoDeps(sb.url, dir, f);
    f.io.note('\n=== Deposit: 100 USD in USDT (TRC20), which needs a wallet address ===');
    const deposit = await runPaymentFlow(
      'deposit',
      {
        currency: 'USD',
        country: 'US',
        amount: '100',
        firstName: 'Ama',
        lastName: 'Mensah',
        phone: '+15551234567',
        email: 'ama@example.com',
        gateway: 5,
      },
      base,
    );
    f.io.note('\n=== Withdraw: 40 GHS by MTN Mobile Money, confirmed with the one-time code ===');
    // The code arrives by e-mail in real life; the sandbox logs it, and a scripted answer types it (every
    // other value is given, so nothing optional is asked).
    const prompter = new ScriptedPrompter([demoMerchant.otp]);
    const withdraw = await runPaymentFlow(
      'withdraw',
      {
        currency: 'GHS',
        country: 'GH',
        amount: '40',
        firstName: 'Kofi',
        lastName: 'Boateng',
        phone: '+233201234567',
        email: 'kofi@example.com',
        gateway: 1,
        phoneNumber: '+233201234567',
      },
      { ...base, prompter },
    );
    const otpLine = sandboxLog.find((l) => l.startsWith('one-time code'));
    if (otpLine) f.io.note(`  (sandbox: ${otpLine})`);
    f.io.note('');
    await printDemo(deposit, withdraw, opts, f);
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The flows' dependencies: a client of the demo merchant's on the sandbox, a journal in `dir`. */
async function demoDeps(url: string, dir: string, f: Factory): Promise<FlowDeps> {
  const { demoMerchant } = await import('../../sandbox/seed.js');
  const { memoryTokens } = await import('../../api/credentials.js');
  const { fingerprint } = await import('../../api/redact.js');
  const client = await f.client({
    baseUrl: url,
    credentials: {
      merchantKey: demoMerchant.merchantKey,
      siteId: demoMerchant.siteId,
      apiKey: demoMerchant.apiKey,
    },
    tokens: memoryTokens(),
    // Show each request as it goes out, secrets redacted; responses are summed up by the steps. For a
    // person to read: the path (the sandbox's URL is said above), a body with a space after each , and
    // : of its own, so that the IO folds it between fields on a terminal.
    debug: (line) => {
      if (/^> (POST|GET|\{)/.test(line)) f.io.note(`    ${readable(line.slice(2), url)}`);
    },
  });
  const place = {
    server: url,
    merchant: fingerprint(demoMerchant.merchantKey),
    profile: 'demo',
    env: 'sandbox',
  };
  return f.flowDepsAt({ client, place, journalDir: dir, command: 'mpay' });
}

/** The two transactions as the flows summed them up, and what to try next. */
async function printDemo(
  deposit: FlowResult,
  withdraw: FlowResult,
  opts: { json?: boolean },
  f: Factory,
): Promise<void> {
  await printResult(
    f.io,
    opts.json,
    [fromFlowResult(deposit), fromFlowResult(withdraw)],
    async () =>
      `${await transactionSummary(fromFlowResult(deposit), {}, fitWidth(f.io))}\n${await transactionSummary(fromFlowResult(withdraw), {}, fitWidth(f.io))}\n\nNext: \`mpay sandbox\` in one terminal; in another, the \`mpay login\` line it prints, then \`mpay deposit\`.`,
  );
}

/** A request line of the demo as a person reads it: `POST /restapi/v1/…`, a body as `{"a": 1, "b": 2}`. */
function readable(line: string, origin: string): string {
  if (!line.startsWith('{')) return line.replace(` ${origin}/`, ' /');
  try {
    const body = JSON.parse(line) as Record<string, unknown>;
    return `{${Object.entries(body)
      .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
      .join(', ')}}`;
  } catch {
    return line;
  }
}
