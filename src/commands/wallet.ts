import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { StepCommand } from '../cli/step-command.js';
import { renderRecord } from '../ui/output.js';
import { dryRunFlag } from '../cli/base-command.js';

export default class Wallet extends StepCommand<typeof Wallet> {
  static override summary =
    'Update the crypto wallet address of a transaction (it must be in status initiated)';
  static override examples = [
    '<%= config.bin %> wallet 3f9a…c2 --gateway 5',
    '<%= config.bin %> wallet mpay-d-lx2k9-1a2b3c --json',
  ];
  static override args = {
    hash_token: Args.string({
      description: 'hash token (or the reference, when mpay started it)',
      required: true,
    }),
  };
  static override flags = {
    gateway: Flags.string({ description: 'gateway id (default: the one in the journal)' }),
    ...dryRunFlag,
  };

  async run(): Promise<void> {
    const { walletStep } = await import('../flows/steps.js');
    const deps = await this.flowDeps({ dryRun: this.flags['dry-run'], command: 'mpay' });
    const { record } = await this.record(deps, this.args.hash_token);
    const gateway = await this.gatewayFor(record, this.flags.gateway);
    const w = await walletStep(record, record.hash_token!, gateway, deps);
    await this.emit(w, async () => {
      await deps.reporter?.address(w.wallet_address, /^(0x|T)/.test(w.wallet_address));
      return renderRecord(w);
    });
  }
}
