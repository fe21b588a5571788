import { BaseCommand } from '../../base/base-command.js';
import { dryRunFlag, inputsFrom, processFlags, hashTokenArg } from '../../base/flags.js';

export default class DepositProcess extends BaseCommand<typeof DepositProcess> {
  static override summary = 'Deposit processed only (the transaction must be in status initiated)';
  static override examples = [
    '<%= config.bin %> deposit process 3f9a…c2',
    '<%= config.bin %> deposit process 3f9a…c2 --phone-number +233201234567 --receiver-email ops@example.com --json',
  ];
  static override args = hashTokenArg;
  static override flags = {
    ...processFlags,
    ...dryRunFlag,
  };

  async run(): Promise<void> {
    const { runDepositProcess } = await import('./run.js');
    const f = this.flags;
    await this.execute(runDepositProcess, {
      json: f.json,
      dryRun: f['dry-run'],
      key: this.args.hash_token,
      inputs: inputsFrom(f),
    });
  }
}
