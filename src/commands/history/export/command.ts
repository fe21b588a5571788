import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets } from '../../base/base-command.js';
import { historyStatuses } from '../../../api/enums.js';
import { UsageError } from '../../../common/errors.js';

export default class HistoryExport extends BaseCommand<typeof HistoryExport> {
  static override baseFlags = flagSets.local;
  static override summary = 'Every record of the journal, for reconciliation, as JSON lines or CSV';
  static override description =
    "The API has no lookup by reference: to reconcile mpay's records with a provider's statement, export them. Each record, oldest first, with its server, merchant (the key's fingerprint), profile and environment, reference, hash token, kind, amount, currency, status, customer and times. Rows are written as they are read, so any number of records takes little memory.\n\nIn CSV, a cell that a spreadsheet could read as a formula (one that starts with =, +, -, @, a tab or a carriage return) starts with a ' instead, so that it opens as text.";
  static override examples = [
    '<%= config.bin %> history export > journal.jsonl',
    '<%= config.bin %> history export --format csv > journal.csv',
    '<%= config.bin %> history export --format csv --since 2026-11-01 --status pending',
  ];
  static override flags = {
    format: Flags.string({
      description: 'jsonl: one JSON object a line; csv: a header line, then a record a line',
      options: ['jsonl', 'csv'],
      default: 'jsonl',
    }),
    since: Flags.string({
      description: 'started at or after: a date, an ISO time, or a duration ago (1h, 2d, 90m)',
    }),
    // checked in run(), as `mpay history` checks it
    status: Flags.string({ description: `last known status: ${historyStatuses.join(', ')}` }),
  };

  async run(): Promise<void> {
    const { runHistoryExport } = await import('./run.js');
    const { format, since, status } = this.flags;
    if (status !== undefined && !(historyStatuses as readonly string[]).includes(status))
      throw new UsageError(`Expected --status=${status} to be one of: ${historyStatuses.join(', ')}`);
    await this.execute(runHistoryExport, { format: format as 'jsonl' | 'csv', since, status });
  }
}
