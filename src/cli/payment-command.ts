// `mpay deposit` and `mpay withdraw`: the whole flow, guided, or resumed.
import { BaseCommand } from './base-command.js';
import { flowFlags, flowSummary, inputsFrom, otpInput, type OtpFlags } from './flow.js';
import type { Kind } from '../journal/journal.js';

export abstract class PaymentCommand extends BaseCommand<typeof PaymentCommand> {
  static override flags = flowFlags;

  protected abstract kind: Kind;

  async run(): Promise<void> {
    const { runPaymentFlow } = await import('../flows/payment.js');
    const { resumeFlow } = await import('../flows/resume.js');
    const deps = await this.flowDeps({
      dryRun: this.flags['dry-run'],
      force: this.flags.force,
      command: `mpay ${this.kind}`,
    });
    // Only withdraw declares --otp and --otp-stdin (otpFlags); for a deposit both are absent.
    const inputs = { ...inputsFrom(this.flags), otp: await otpInput(this.flags as OtpFlags, this.io.stdin) };
    const result = this.flags.resume
      ? await resumeFlow(this.kind, this.flags.resume, inputs, deps)
      : await runPaymentFlow(this.kind, inputs, deps);
    await this.emit(result, () => flowSummary(result));
  }
}
