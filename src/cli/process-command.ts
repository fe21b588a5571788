import * as Args from '@oclif/core/args';
import { StepCommand } from './step-command.js';
import { flowSummary, inputsFrom, otpInput, processFlags, type OtpFlags } from './flow.js';
import type { Kind } from '../journal/journal.js';
import { dryRunFlag } from './base-command.js';

/** `mpay deposit process <hash>` and `mpay withdraw process <hash>`. */
export abstract class ProcessCommand extends StepCommand<typeof ProcessCommand> {
  static override args = {
    hash_token: Args.string({
      description: 'hash token from initiate (or the reference, when mpay started it)',
      required: true,
    }),
  };
  static override flags = {
    ...processFlags,
    ...dryRunFlag,
  };
  protected abstract kind: Kind;

  async run(): Promise<void> {
    const { processStage } = await import('../flows/payment.js');
    const deps = await this.flowDeps({ dryRun: this.flags['dry-run'], command: `mpay ${this.kind}` });
    const { record } = await this.record(deps, this.args.hash_token, this.kind);
    // Only withdraw process declares --email, --otp and --otp-stdin.
    const inputs = { ...inputsFrom(this.flags), otp: await otpInput(this.flags as OtpFlags, this.io.stdin) };
    const result = await processStage(record, inputs, deps);
    await this.emit(result, () => flowSummary(result));
  }
}
