// `mpay deposit` and `mpay withdraw`: the whole flow, guided, or resumed.
import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command.js';
import { flowDeps, flowFlags, flowSummary, inputsFrom } from './flow.js';
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
    const ctx = await this.loadContext();
    const client = await this.client({ dryRun: this.flags['dry-run'] });
    const deps = await flowDeps(ctx, client, this.interactive ? await this.prompter() : undefined, {
      yes: this.flags.yes,
      force: this.flags.force,
      command: `mpay ${this.kind}`,
    });
    const inputs = inputsFrom(this.flags);
    if (this.flags['otp-stdin']) {
      const { text } = await import('node:stream/consumers');
      inputs.otp = (await text(process.stdin)).trim();
    }
    const result = this.flags.resume
      ? await resumeFlow(this.kind, this.flags.resume, inputs, deps)
      : await runPaymentFlow(this.kind, inputs, deps);
    await this.emit(result, () => flowSummary(result));
  }
}
