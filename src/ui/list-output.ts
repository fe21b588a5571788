// What the list commands share: --filter, --columns, then JSON, CSV or a table.
import { UsageError } from '../api/errors.js';
import type { IO } from '../io.js';
import {
  FilterSyntaxError,
  applyFilters,
  parseFilters,
  renderCsv,
  renderTable,
  selectColumns,
  type Column,
} from './output.js';

export interface ListOptions {
  json?: boolean;
  csv?: boolean;
  columns?: string;
  filter?: string[];
}

export async function printList<T>(
  io: IO,
  rows: T[],
  columns: Column<T>[],
  opts: ListOptions,
): Promise<void> {
  let filters: Array<[string, string]>;
  try {
    filters = parseFilters(opts.filter);
  } catch (err) {
    if (err instanceof FilterSyntaxError)
      throw new UsageError(err.message, { hint: 'Example: --filter code=GHS' });
    throw err;
  }
  const kept = applyFilters(rows, filters, columns);
  if (opts.json) return io.out(JSON.stringify(kept, null, 2));
  const cols = selectColumns(columns, opts.columns);
  if (opts.csv) return io.out(renderCsv(kept, cols));
  if (kept.length === 0) return io.note('No rows.');
  io.out(await renderTable(kept, cols));
}
