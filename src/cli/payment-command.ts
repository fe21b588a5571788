// `mpay deposit` and `mpay withdraw`: the whole flow, guided, or resumed.
import * as Flags from '@oclif/core/flags';
import { BaseCommand } from './base-command.js';
import { flowFlags, flowSummary, inputsFrom, otpInput } from './flow.js';
import type { Kind } from '../journal/journal.js';

export abstract class PaymentCommand extends BaseCommand<typeof PaymentCommand> {
  static override flags = {
    ...flowFlags,
    otp: Flags.string({ description: 'the one-time code (withdraw), when you already have it' }),
    'otp-stdin': Flags.boolean({
      description: 'read the one-time code from stdin (withdraw)',
      exclusive: ['otp'],
    }),
  };

  protected abstract kind: Kind;

  async run(): Promise<void> {
    const { runPaymentFlow, resumeFlow } = await import('../flows/payment.js');
    const deps = await this.flowDeps({
      dryRun: this.flags['dry-run'],
      force: this.flags.force,
      command: `mpay ${this.kind}`,
    });
    const inputs = { ...inputsFrom(this.flags), otp: await otpInput(this.flags) };
    const result = this.flags.resume
      ? await resumeFlow(this.kind, this.flags.resume, inputs, deps)
      : await runPaymentFlow(this.kind, inputs, deps);
    await this.emit(result, () => flowSummary(result));
  }
}
