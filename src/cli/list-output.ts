// Shared by the list commands: --filter, --columns, then JSON, CSV or a table.
import { UsageError } from '../api/errors.js';
import {
  FilterSyntaxError,
  applyFilters,
  parseFilters,
  renderCsv,
  renderTable,
  selectColumns,
  type Column,
} from '../ui/output.js';

export interface ListFlags {
  json?: boolean;
  csv?: boolean;
  columns?: string;
  filter?: string[];
}

export async function listOutput<T>(rows: T[], columns: Column<T>[], flags: ListFlags): Promise<void> {
  let filters: Array<[string, string]>;
  try {
    filters = parseFilters(flags.filter);
  } catch (err) {
    if (err instanceof FilterSyntaxError)
      throw new UsageError(err.message, { hint: 'Example: --filter code=GHS' });
    throw err;
  }
  const kept = applyFilters(rows, filters, columns);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(kept, null, 2)}\n`);
    return;
  }
  const cols = selectColumns(columns, flags.columns);
  if (flags.csv) {
    process.stdout.write(`${renderCsv(kept, cols)}\n`);
    return;
  }
  if (kept.length === 0) {
    process.stderr.write('No rows.\n');
    return;
  }
  process.stdout.write(`${await renderTable(kept, cols)}\n`);
}
