import { BaseCommand } from '../../base/base-command.js';
import { customerFlags, dryRunFlag, inputsFrom } from '../../base/flags.js';

export default class WithdrawInitiate extends BaseCommand<typeof WithdrawInitiate> {
  static override summary = 'Withdraw initiate only: the initiated payment, its hash token and gateways';
  static override examples = [
    '<%= config.bin %> withdraw initiate --currency GHS --amount 40 --first-name Kofi --phone +233201234567 --email kofi@example.com --json',
  ];
  static override flags = { ...customerFlags, ...dryRunFlag };

  async run(): Promise<void> {
    const { runWithdrawInitiate } = await import('./run.js');
    const f = this.flags;
    await this.execute(runWithdrawInitiate, {
      json: f.json,
      dryRun: f['dry-run'],
      force: f.force,
      inputs: inputsFrom(f),
    });
  }
}
