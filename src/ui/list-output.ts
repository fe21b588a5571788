// What the list commands share: --filter, --columns, then JSON, CSV or a table.
import { UsageError } from '../api/errors.js';
import type { IO } from '../io.js';
import { printJson } from './print.js';
import {
  FilterSyntaxError,
  UnknownKeyError,
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
  /** every column, not only the default ones */
  wide?: boolean;
}

export async function printList<T>(
  io: IO,
  rows: T[],
  columns: Column<T>[],
  opts: ListOptions,
): Promise<void> {
  let kept: T[];
  let cols: Column<T>[];
  try {
    kept = applyFilters(rows, parseFilters(opts.filter), columns);
    cols = selectColumns(columns, opts.columns, opts.wide);
  } catch (err) {
    if (err instanceof FilterSyntaxError)
      throw new UsageError(err.message, { hint: 'Example: --filter code=GHS' });
    if (err instanceof UnknownKeyError)
      throw new UsageError(err.message, { hint: `Known ${err.what}s: ${err.known.join(', ')}` });
    throw err;
  }
  if (opts.json) return printJson(io, kept);
  if (opts.csv) return io.out(renderCsv(kept, cols));
  if (kept.length === 0) return io.note('No rows.');
  // Cut to fit on a terminal only: a pipe or a file gets every character.
  io.out(await renderTable(kept, cols, io.stdoutIsTTY ? io.width : undefined));
}
