import * as Flags from '@oclif/core/flags';
import { BaseCommand, type HelpGroup } from '../base/base-command.js';
import { isTransactionStatus, transactionStatuses } from '../../api/enums.js';
import { dryRunFlag, hashTokenArg } from '../base/flags.js';
import { gatewayOf } from '../../flows/payment/inputs.js';

export default class Status extends BaseCommand<typeof Status> {
  static helpGroup: HelpGroup = { section: 'PAYMENTS', order: 3 };
  static override summary = "Update a transaction's status (payment status update)";
  static override description =
    'Only a transaction in status initiated can be updated (exit 5 otherwise). The gateway must be one of those initiate returned; the journal supplies it when mpay chose one.';
  static override examples = [
    '<%= config.bin %> status 3f9a…c2 --status initiated --gateway 1',
    '<%= config.bin %> status mpay-d-lx2k9-1a2b3c --status cancelled --json',
  ];
  static override args = hashTokenArg;
  static override flags = {
    status: Flags.string({
      description: 'new status',
      options: [...transactionStatuses],
      required: true,
    }),
    gateway: Flags.string({
      description: 'gateway id (default: the one in the journal; the ids per currency: mpay balances --wide)',
    }),
    ...dryRunFlag,
  };

  async run(): Promise<void> {
    const { runStatus } = await import('./run.js');
    // oclif has checked --status against the same list; the guard tells TypeScript so.
    if (!isTransactionStatus(this.flags.status)) throw new Error(`unreachable: ${this.flags.status}`);
    const { json, status, gateway } = this.flags;
    await this.execute(runStatus, {
      json,
      dryRun: this.flags['dry-run'],
      key: this.args.hash_token,
      status,
      gateway: gatewayOf(gateway),
    });
  }
}
