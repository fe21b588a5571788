import * as Args from '@oclif/core/args';
import { BaseCommand } from '../../cli/base-command.js';
import { UsageError } from '../../api/errors.js';
import { renderRecord, renderTable } from '../../ui/output.js';

export default class HistoryShow extends BaseCommand<typeof HistoryShow> {
  static override summary = 'Show one transaction from the journal, with each step, its time and outcome';
  static override examples = [
    '<%= config.bin %> history show mpay-d-lx2k9-1a2b3c',
    '<%= config.bin %> history show 3f9a…c2 --json',
  ];
  static override args = { key: Args.string({ description: 'hash token or reference', required: true }) };

  async run(): Promise<void> {
    const ctx = await this.loadContext();
    const { stepDone } = await import('../../journal/journal.js');
    const r = (await this.factory.journal()).find(this.args.key);
    if (!r)
      throw new UsageError(`Nothing in the journal for "${this.args.key}"`, {
        hint: `Profile ${ctx.profileName}, ${ctx.env}: see \`mpay history\``,
      });
    const next = !r.hash_token
      ? 'initiate (outcome unknown: --resume re-sends it with the same reference)'
      : stepDone(r, 'processed')
        ? 'none'
        : `mpay ${r.kind} --resume ${r.reference}`;
    await this.emit({ ...r, next }, async () => {
      const { steps, customer, ...rest } = r;
      return `${await renderRecord({ ...rest, customer: customer ? `${customer.first_name ?? ''} ${customer.last_name ?? ''}, ${customer.phone ?? ''}, ${customer.email ?? ''}` : undefined, next })}\n${await renderTable(
        steps,
        [
          { key: 'at', header: 'At' },
          { key: 'step', header: 'Step' },
          { key: 'outcome', header: 'Outcome' },
          { key: 'detail', header: 'Detail' },
        ],
      )}`;
    });
  }
}
