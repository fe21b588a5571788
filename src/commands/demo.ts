import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseCommand } from '../cli/base-command.js';
import { flowSummary } from '../cli/flow.js';

export default class Demo extends BaseCommand<typeof Demo> {
  static override summary = 'Run a deposit and a withdraw end to end against a sandbox started in-process';
  static override description = `No account, no configuration, no network: starts the sandbox on a free loopback port, then runs a USDT deposit (with its wallet address update) and a mobile-money withdrawal (with the one-time code), showing each step and the request it sends. Nothing is written to your mpay configuration; the demo's journal lives in a temporary folder that is removed at the end.`;
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --json | jq ".[].status"'];

  async run(): Promise<void> {
    const { startSandbox } = await import('../sandbox/server.js');
    const { demoMerchant } = await import('../sandbox/seed.js');
    const { memoryTokens } = await import('../api/client.js');
    const { ScriptedPrompter } = await import('../flows/prompter.js');
    const { runPaymentFlow } = await import('../flows/payment.js');
    const dir = mkdtempSync(join(tmpdir(), 'mpay-demo-'));
    const sandboxLog: string[] = [];
    const sb = await startSandbox({ port: 0, host: '127.0.0.1', log: (l) => sandboxLog.push(l) });
    try {
      this.note(
        `Sandbox on ${sb.url} (demo merchant ${demoMerchant.merchantKey}, site ${demoMerchant.siteId})`,
      );
      const client = await this.factory.client({
        baseUrl: sb.url,
        credentials: {
          merchantKey: demoMerchant.merchantKey,
          siteId: demoMerchant.siteId,
          apiKey: demoMerchant.apiKey,
        },
        tokens: memoryTokens(),
        // Show each request as it goes out, secrets redacted; responses are summed up by the steps.
        debug: (line) => {
          if (/^> (POST|GET|\{)/.test(line)) this.io.stderr.write(`    ${line.slice(2)}\n`);
        },
      });
      const base = {
        client,
        journal: await this.factory.journal({ dir, profile: 'demo', env: 'sandbox' }),
        reporter: await this.factory.reporter(),
        env: 'sandbox',
        yes: true,
        command: 'mpay',
      };
      this.note('\n=== Deposit: 100 USD in USDT (TRC20), which needs a wallet address ===');
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
          gateway: '5',
        },
        base,
      );
      this.note('\n=== Withdraw: 40 GHS by MTN Mobile Money, confirmed with the one-time code ===');
      // The code arrives by e-mail in real life; the sandbox logs it, and scripted answers type it (after
      // leaving the optional receiver e-mail empty).
      const prompter = new ScriptedPrompter(['', demoMerchant.otp]);
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
          gateway: '1',
          phoneNumber: '+233201234567',
          reference: `demo-w-${Date.now().toString(36)}`,
        },
        { ...base, prompter },
      );
      const otpLine = sandboxLog.find((l) => l.startsWith('one-time code'));
      if (otpLine) this.note(`  (sandbox: ${otpLine})`);
      this.note('');
      await this.emit(
        [deposit, withdraw],
        async () =>
          `${await flowSummary(deposit)}\n${await flowSummary(withdraw)}\n\nNext: \`mpay sandbox\` in one terminal, then \`mpay login --env sandbox\` and \`mpay deposit\` in another.`,
      );
    } finally {
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
