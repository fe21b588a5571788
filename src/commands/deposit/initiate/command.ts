import { BaseCommand } from '../../base/base-command.js';
import { customerFlags, dryRunFlag, inputsFrom } from '../../base/flags.js';

export default class DepositInitiate extends BaseCommand<typeof DepositInitiate> {
  static override summary = 'Deposit initiate only: the initiated payment, its hash token and gateways';
  static override examples = [
    '<%= config.bin %> deposit initiate --currency GHS --country GH --amount 25 --first-name Ama --phone +233201234567 --email ama@example.com',
    '<%= config.bin %> deposit initiate --currency GHS --amount 25 --first-name Ama --phone +233201234567 --email ama@example.com --json | jq -r .has_token',
  ];
  static override flags = { ...customerFlags, ...dryRunFlag };

  async run(): Promise<void> {
    const { runDepositInitiate } = await import('./run.js');
    const f = this.flags;
    await this.execute(runDepositInitiate, {
      json: f.json,
      dryRun: f['dry-run'],
      force: f.force,
      inputs: inputsFrom(f),
    });
  }
}
