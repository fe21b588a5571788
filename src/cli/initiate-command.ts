import { BaseCommand, dryRunFlag } from './base-command.js';
import { customerFlags, inputsFrom } from './flow.js';
import type { Kind } from '../journal/journal.js';
import { renderRecord } from '../ui/output.js';

/** `mpay deposit initiate` and `mpay withdraw initiate`. */
export abstract class InitiateCommand extends BaseCommand<typeof InitiateCommand> {
  static override flags = {
    ...customerFlags,
    ...dryRunFlag,
  };
  protected abstract kind: Kind;

  async run(): Promise<void> {
    const { initiateOnly } = await import('../flows/payment.js');
    const deps = await this.flowDeps({
      dryRun: this.flags['dry-run'],
      force: this.flags.force,
      command: `mpay ${this.kind}`,
    });
    const p = await initiateOnly(this.kind, inputsFrom(this.flags), deps);
    await this.emit(p, () =>
      renderRecord({
        has_token: p.has_token,
        customer_transaction_id: p.customer_transaction_id,
        amount: `${p.amount} ${p.currency?.code ?? ''}`,
        country: p.country?.code,
        customer_email: p.customer_email,
        gateways: p.gateway_configuration.map((c) => `${c.gateway.id} ${c.gateway.name}`).join(', '),
        next: `mpay status ${p.has_token} --status initiated --gateway <ID>`,
      }),
    );
  }
}
