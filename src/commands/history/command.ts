import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';
import { columnsHelp, historyColumns } from '../shared/columns.js';
import { historyStatuses } from '../../api/enums.js';
import { UsageError } from '../../common/errors.js';
import { listOptionsFrom, outputFlags } from '../base/flags.js';

/** as ./run.ts's defaultHistoryLimit (the command class loads no run module before it runs) */
const defaultHistoryLimit = 30;

export default class History extends BaseCommand<typeof History> {
  static override baseFlags = flagSets.local;
  static helpGroup: HelpGroup = { section: 'READING', order: 4 };
  static override summary = 'The transactions mpay started, newest first, from its journal';
  static override description =
    'The API has no endpoint that reads a transaction back, so this journal is the record of what was sent, when, and what came back. `mpay history show` gives one transaction with its steps.\n\nThe newest 30 by default (--limit N, or --all); with --all, --json and --csv are written as they are read, so any number of transactions takes little memory.\n\n' +
    columnsHelp(historyColumns);
  static override examples = [
    '<%= config.bin %> history',
    '<%= config.bin %> history --limit 100',
    '<%= config.bin %> history --all --csv > journal.csv',
    '<%= config.bin %> history --kind withdraw --status pending',
    '<%= config.bin %> history --since 2026-11-01 --json',
    '<%= config.bin %> history --since 2d --kind withdraw',
    '<%= config.bin %> history --reference mpay-d-lx2k9-1a2b3c --csv',
  ];
  static override flags = {
    kind: Flags.string({ description: 'deposit or withdraw', options: ['deposit', 'withdraw'] }),
    // checked in run(), not by oclif's `options`: its "<options: …>" line of seven statuses, one of two
    // words, is wider than a 60-column terminal
    status: Flags.string({
      description: `last known status: ${historyStatuses.join(', ')} (the last request had no answer: settle it with history resolve)`,
    }),
    reference: Flags.string({ description: 'reference (customer_transaction_id)' }),
    since: Flags.string({
      description: 'started at or after: a date, an ISO time, or a duration ago (1h, 2d, 90m)',
    }),
    until: Flags.string({
      description: 'started at or before: a date, an ISO time, or a duration ago (1h, 2d)',
    }),
    limit: Flags.integer({
      description: `show the newest N (default ${defaultHistoryLimit})`,
      min: 1,
      exclusive: ['all'],
    }),
    all: Flags.boolean({ description: 'every transaction, newest first' }),
    probes: Flags.boolean({
      description:
        "doctor's and login's API-key checks too (journaled, as every money request is; left out otherwise unless one made something or had no answer)",
    }),
    ...outputFlags,
  };

  async run(): Promise<void> {
    const { runHistory } = await import('./run.js');
    const { kind, status, reference, since, until, limit, all, probes } = this.flags;
    if (status !== undefined && !(historyStatuses as readonly string[]).includes(status))
      throw new UsageError(`Expected --status=${status} to be one of: ${historyStatuses.join(', ')}`);
    await this.execute(runHistory, {
      ...listOptionsFrom(this.flags),
      kind,
      status,
      reference,
      since,
      until,
      limit,
      all,
      probes,
    });
  }
}
