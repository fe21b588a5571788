import * as Flags from '@oclif/core/flags';
import { ProcessCommand } from '../../cli/process-command.js';
import { otpFlags } from '../../cli/flow.js';

export default class WithdrawProcess extends ProcessCommand {
  static override summary = 'Withdraw processed only: sends the one-time code, then confirms with it';
  static override description =
    'When the journal shows the code was already sent, goes straight to confirming with --otp (or asks for it on a terminal).';
  static override examples = [
    '<%= config.bin %> withdraw process 3f9a…c2 --otp 123456',
    '<%= config.bin %> withdraw process 3f9a…c2 --phone-number +233201234567 --email kofi@example.com   # sends the code',
  ];
  static override flags = {
    ...ProcessCommand.flags,
    email: Flags.string({
      description: 'customer e-mail, where the one-time code goes (default: from the journal)',
    }),
    ...otpFlags,
  };
  protected kind = 'withdraw' as const;
}
