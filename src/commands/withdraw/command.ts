import { BaseCommand, type HelpGroup } from '../base/base-command.js';
import { flowFlags, inputsFrom, otpFlags } from '../base/flags.js';

export default class Withdraw extends BaseCommand<typeof Withdraw> {
  static helpGroup: HelpGroup = { section: 'PAYMENTS', order: 2 };
  static override summary = 'Run a withdrawal, confirmed with the one-time code';
  static override description = `Like \`mpay deposit\`, then processed sends a one-time code to the customer e-mail: mpay asks for it (masked, up to three tries), or takes --otp / --otp-stdin. Without a terminal and without a code, it stops once the code is sent, exits 0, and prints "next": "otp" with the hash token and the command that finishes it.`;
  static override examples = [
    '<%= config.bin %> withdraw',
    '<%= config.bin %> withdraw --currency GHS --amount 40 --first-name Kofi --phone +233201234567 --email kofi@example.com --gateway 1 --json',
    '<%= config.bin %> withdraw process 3f9a…c2 --otp 123456',
    'echo 123456 | <%= config.bin %> withdraw --resume mpay-w-lx2k9-1a2b3c --otp-stdin',
  ];
  static override flags = { ...flowFlags, ...otpFlags };

  async run(): Promise<void> {
    const { runWithdraw } = await import('./run.js');
    const f = this.flags;
    await this.execute(runWithdraw, {
      json: f.json,
      dryRun: f['dry-run'],
      force: f.force,
      resume: f.resume,
      otpStdin: f['otp-stdin'],
      inputs: inputsFrom(f),
    });
  }
}
