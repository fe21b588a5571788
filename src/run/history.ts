// `mpay history` and `mpay history show`: the journal of what mpay started, as a list or one record.
import { UsageError } from '../api/errors.js';
import type { Factory } from '../factory.js';
import { stepDone, type JournalRecord } from '../journal/journal.js';
import { printList, type ListOptions } from '../ui/list-output.js';
import { renderRecord, renderTable, type Column } from '../ui/output.js';
import { printResult } from '../ui/print.js';

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

export interface HistoryOptions extends ListOptions {
  kind?: string;
  status?: string;
  reference?: string;
  /** YYYY-MM-DD */
  since?: string;
  until?: string;
}

export async function runHistory(opts: HistoryOptions, f: Factory): Promise<void> {
  const day = (v: string | undefined, flag: string) => {
    if (v === undefined) return undefined;
    if (!/^\d{4}-\d\d-\d\d$/.test(v) || Number.isNaN(Date.parse(v)))
      throw new UsageError(`Invalid ${flag} "${v}": expected YYYY-MM-DD`);
    return v;
  };
  const since = day(opts.since, '--since');
  const until = day(opts.until, '--until');
  const rows = (await f.journal())
    .records()
    .filter((r) => !opts.kind || r.kind === opts.kind)
    .filter((r) => !opts.status || r.status === opts.status)
    .filter((r) => !opts.reference || r.reference === opts.reference)
    .filter((r) => !since || r.created_at.slice(0, 10) >= since)
    .filter((r) => !until || r.created_at.slice(0, 10) <= until);
  await printList(f.io, rows, historyColumns, opts);
}

export async function runHistoryShow(opts: { json?: boolean; key: string }, f: Factory): Promise<void> {
  const ctx = await f.context();
  const r = (await f.journal()).find(opts.key);
  if (!r)
    throw new UsageError(`Nothing in the journal for "${opts.key}"`, {
      hint: `Profile ${ctx.profileName}, ${ctx.env}: see \`mpay history\``,
    });
  const next = !r.hash_token
    ? 'initiate (outcome unknown: --resume re-sends it with the same reference)'
    : stepDone(r, 'processed')
      ? 'none'
      : `mpay ${r.kind} --resume ${r.reference}`;
  await printResult(f.io, opts.json, { ...r, next }, async () => {
    const { steps, customer, ...rest } = r;
    const who = customer
      ? `${customer.first_name ?? ''} ${customer.last_name ?? ''}, ${customer.phone ?? ''}, ${customer.email ?? ''}`
      : undefined;
    const table = await renderTable(steps, [
      { key: 'at', header: 'At' },
      { key: 'step', header: 'Step' },
      { key: 'outcome', header: 'Outcome' },
      { key: 'detail', header: 'Detail' },
    ]);
    return `${await renderRecord({ ...rest, customer: who, next })}\n${table}`;
  });
}
