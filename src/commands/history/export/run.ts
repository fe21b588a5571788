// `mpay history export`: every record of the journal, oldest first, as JSON lines or CSV, written as it
// is read from the database (no array of the whole journal in memory).
import type { Factory } from '../../../factory.js';
import { keepYoungGenerationSmall } from '../../../flows/batch/heap-bound.js';
import { statusShown, type JournalRecord } from '../../../journal/records.js';
import { chunkedWriter } from '../../../ui/list-output.js';
import { csvHeader, csvLine, type Column } from '../../../ui/output.js';
import { parseWhen } from '../../../common/when.js';

export interface ExportOptions {
  format: 'jsonl' | 'csv';
  /** started at or after: a date, an ISO time, or a duration ago */
  since?: string;
  /** the status `mpay history` shows */
  status?: string;
}

/** One exported record: flat, so that JSON lines and CSV say the same (docs/json/history-export.schema.json). */
export function exportRow(r: JournalRecord): Record<string, string | number | null> {
  return {
    server: r.place?.server ?? null,
    merchant: r.place?.merchant ?? null,
    profile: r.place?.profile ?? null,
    env: r.place?.env ?? null,
    reference: r.reference,
    hash_token: r.hash_token ?? null,
    kind: r.kind,
    amount: r.amount ?? null,
    currency: r.currency ?? null,
    status: statusShown(r) ?? null,
    created_at: r.created_at,
    updated_at: r.updated_at,
    transaction_id: r.transaction_id ?? null,
    gateway_id: r.gateway_id ?? null,
    customer_first_name: r.customer?.first_name ?? null,
    customer_last_name: r.customer?.last_name ?? null,
    customer_phone: r.customer?.phone ?? null,
    customer_email: r.customer?.email ?? null,
    resolved_as: r.resolved?.as ?? null,
  };
}

// Each column reads its own field (without `get`, a cell is looked up in the whole row flattened anew:
// nineteen flattenings a line, most of a CSV export's time).
const columns: Column<Record<string, unknown>>[] = Object.keys(
  exportRow({ reference: '', kind: 'deposit', created_at: '', updated_at: '', steps: [] }),
).map((key) => ({ key, header: key, get: (row) => row[key] }));

export async function runHistoryExport(opts: ExportOptions, f: Factory): Promise<void> {
  const since = opts.since === undefined ? undefined : parseWhen(opts.since, '--since', f.now());
  const journal = await f.journal();
  keepYoungGenerationSmall();
  const write = chunkedWriter(f.io);
  if (opts.format === 'csv') await write(`${csvHeader(columns)}\n`);
  for (const r of journal.newest({ since, oldest: true })) {
    if (opts.status !== undefined && statusShown(r) !== opts.status) continue;
    const row = exportRow(r);
    await write(opts.format === 'csv' ? `${csvLine(row, columns)}\n` : `${JSON.stringify(row)}\n`);
  }
  await write('', true);
}
