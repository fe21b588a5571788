import * as Flags from '@oclif/core/flags';
import { BaseCommand, outputFlags } from '../../cli/base-command.js';
import { listOutput } from '../../cli/list-output.js';
import { UsageError } from '../../api/errors.js';
import type { JournalRecord } from '../../journal/journal.js';
import type { Column } from '../../ui/output.js';

export const historyColumns: Column<JournalRecord>[] = [
  { key: 'created_at', header: 'Started', get: (r) => r.created_at.slice(0, 19).replace('T', ' ') },
  { key: 'kind', header: 'Kind' },
  { key: 'reference', header: 'Reference' },
  { key: 'amount', header: 'Amount', get: (r) => `${r.amount ?? ''} ${r.currency ?? ''}`.trim() },
  {
    key: 'gateway',
    header: 'Gateway',
    get: (r) => (r.gateway_id === undefined ? '' : `${r.gateway_id} ${r.gateway_name ?? ''}`.trim()),
  },
  { key: 'status', header: 'Status' },
  {
    key: 'last_step',
    header: 'Last step',
    get: (r) => (r.steps.length ? `${r.steps.at(-1)!.step} ${r.steps.at(-1)!.outcome}` : ''),
  },
  {
    key: 'hash_token',
    header: 'Hash token',
    get: (r) => (r.hash_token ? `${r.hash_token.slice(0, 12)}…` : ''),
  },
];

export default class History extends BaseCommand<typeof History> {
  static override summary =
    'List the transactions mpay started (the local journal of this profile and environment)';
  static override description =
    'The API has no endpoint that reads a transaction back, so this journal is the record of what was sent, when, and what came back. `mpay history show` gives one transaction with its steps.';
  static override examples = [
    '<%= config.bin %> history',
    '<%= config.bin %> history --kind withdraw --status pending',
    '<%= config.bin %> history --since 2026-11-01 --json',
    '<%= config.bin %> history --reference mpay-d-lx2k9-1a2b3c --csv',
  ];
  static override flags = {
    kind: Flags.string({ description: 'deposit or withdraw', options: ['deposit', 'withdraw'] }),
    status: Flags.string({ description: 'last known status (initiated, pending, …)' }),
    reference: Flags.string({ description: 'reference (customer_transaction_id)' }),
    since: Flags.string({ description: 'started on or after this date (YYYY-MM-DD)' }),
    until: Flags.string({ description: 'started on or before this date (YYYY-MM-DD)' }),
    ...outputFlags,
  };

  async run(): Promise<void> {
    const day = (v: string | undefined, flag: string) => {
      if (v === undefined) return undefined;
      if (!/^\d{4}-\d\d-\d\d$/.test(v) || Number.isNaN(Date.parse(v)))
        throw new UsageError(`Invalid ${flag} "${v}": expected YYYY-MM-DD`);
      return v;
    };
    const since = day(this.flags.since, '--since');
    const until = day(this.flags.until, '--until');
    const rows = (await this.factory.journal())
      .records()
      .filter((r) => !this.flags.kind || r.kind === this.flags.kind)
      .filter((r) => !this.flags.status || r.status === this.flags.status)
      .filter((r) => !this.flags.reference || r.reference === this.flags.reference)
      .filter((r) => !since || r.created_at.slice(0, 10) >= since)
      .filter((r) => !until || r.created_at.slice(0, 10) <= until);
    await listOutput(rows, historyColumns, this.flags);
  }
}
