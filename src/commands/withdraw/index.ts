import { PaymentCommand } from '../../cli/payment-command.js';
import { flowFlags, otpFlags } from '../../cli/flow.js';

export default class Withdraw extends PaymentCommand {
  static override summary = 'Run the whole withdraw flow, with the one-time code sent to the customer';
  static override description = `Like \`mpay deposit\`, then processed sends a one-time code to the customer e-mail: mpay asks for it (masked, up to three tries), or takes --otp / --otp-stdin. Without a terminal and without a code, it stops once the code is sent, exits 0, and prints "next": "otp" with the hash token and the command that finishes it.`;
  static override examples = [
    '<%= config.bin %> withdraw',
    '<%= config.bin %> withdraw --currency GHS --amount 40 --first-name Kofi --phone +233201234567 --email kofi@example.com --gateway 1 --json',
    '<%= config.bin %> withdraw process 3f9a…c2 --otp 123456',
    'echo 123456 | <%= config.bin %> withdraw --resume mpay-w-lx2k9-1a2b3c --otp-stdin',
  ];
  static override flags = { ...flowFlags, ...otpFlags };
  protected kind = 'withdraw' as const;
}
