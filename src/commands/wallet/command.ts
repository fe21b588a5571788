import * as Flags from '@oclif/core/flags';
import { BaseCommand, type HelpGroup } from '../base/base-command.js';
import { dryRunFlag, hashTokenArg } from '../base/flags.js';
import { gatewayOf } from '../../flows/payment/inputs.js';

export default class Wallet extends BaseCommand<typeof Wallet> {
  static helpGroup: HelpGroup = { section: 'PAYMENTS', order: 4 };
  static override summary = "Update a transaction's crypto wallet address (status initiated)";
  static override examples = [
    '<%= config.bin %> wallet 3f9a…c2 --gateway 5',
    '<%= config.bin %> wallet mpay-d-lx2k9-1a2b3c --json',
  ];
  static override args = hashTokenArg;
  static override flags = {
    gateway: Flags.string({
      description: 'gateway id (default: the one in the journal; the ids per currency: mpay balances --wide)',
    }),
    ...dryRunFlag,
  };

  async run(): Promise<void> {
    const { runWallet } = await import('./run.js');
    const { json, gateway } = this.flags;
    await this.execute(runWallet, {
      json,
      dryRun: this.flags['dry-run'],
      key: this.args.hash_token,
      gateway: gatewayOf(gateway),
    });
  }
}
