import { BaseCommand, type HelpGroup } from '../base/base-command.js';
import { flowFlags, inputsFrom } from '../base/flags.js';

export default class Deposit extends BaseCommand<typeof Deposit> {
  static helpGroup: HelpGroup = { section: 'PAYMENTS', order: 1 };
  static override summary = 'Run a deposit: initiate, wallet address, status, processed';
  static override description = `Asks for each missing value on a terminal (currency and country from your merchant currencies, amount within their limits, customer, reference), shows a summary, then runs each step and records it in the journal (\`mpay history\`). Every value can be given by flag; with --no-input or no terminal nothing is asked and a missing value is an error naming its flag. On the live environment a confirmation is asked (--yes skips it).

A flow that stopped (a failure, Ctrl-C) picks up at its next step with --resume.`;
  static override examples = [
    '<%= config.bin %> deposit',
    '<%= config.bin %> deposit --currency GHS --country GH --amount 25 --first-name Ama --last-name Mensah --phone +233201234567 --email ama@example.com --gateway 1 --json',
    '<%= config.bin %> deposit --currency USD --amount 100 --first-name Ama --phone +15551234567 --email ama@example.com --gateway 5   # USDT: wallet address update first',
    '<%= config.bin %> deposit --resume mpay-d-lx2k9-1a2b3c',
    '<%= config.bin %> deposit --dry-run --currency GHS --amount 25 --first-name Ama --phone +233201234567 --email ama@example.com --gateway 1',
  ];
  static override flags = { ...flowFlags };

  async run(): Promise<void> {
    const { runDeposit } = await import('./run.js');
    const f = this.flags;
    await this.execute(runDeposit, {
      json: f.json,
      dryRun: f['dry-run'],
      force: f.force,
      resume: f.resume,
      inputs: inputsFrom(f),
    });
  }
}
