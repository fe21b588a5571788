import * as Flags from '@oclif/core/flags';
import { BaseCommand } from '../../base/base-command.js';
import { dryRunFlag, inputsFrom, otpFlags, processFlags, hashTokenArg } from '../../base/flags.js';

export default class WithdrawProcess extends BaseCommand<typeof WithdrawProcess> {
  static override summary = 'Withdraw processed only: sends the one-time code, then confirms with it';
  static override description =
    'When the journal shows the code was already sent, goes straight to confirming with --otp (or asks for it on a terminal).';
  static override examples = [
    '<%= config.bin %> withdraw process 3f9a…c2 --otp 123456',
    '<%= config.bin %> withdraw process 3f9a…c2 --phone-number +233201234567 --email kofi@example.com   # sends the code',
  ];
  static override args = hashTokenArg;
  static override flags = {
    ...processFlags,
    ...dryRunFlag,
    email: Flags.string({
      description: 'customer e-mail, where the one-time code goes (default: from the journal)',
    }),
    ...otpFlags,
  };

  async run(): Promise<void> {
    const { runWithdrawProcess } = await import('./run.js');
    const f = this.flags;
    await this.execute(runWithdrawProcess, {
      json: f.json,
      dryRun: f['dry-run'],
      key: this.args.hash_token,
      otpStdin: f['otp-stdin'],
      inputs: inputsFrom(f),
    });
  }
}
