// What the list commands share: --filter, --columns, then JSON, CSV or a table.
import { once } from 'node:events';
import { UsageError } from '../common/errors.js';
import type { IO } from '../io/io.js';
import { fitWidth, printJson } from './print.js';
import {
  FilterSyntaxError,
  UnknownKeyError,
  applyFilters,
  parseFilters,
  csvHeader,
  csvLine,
  matchesFilters,
  jsonText,
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

/** --filter and --columns, read. */
function listSetup<T>(
  columns: Column<T>[],
  opts: ListOptions,
): { filters: Array<[string, string]>; cols: Column<T>[] } {
  return checked(() => ({
    filters: parseFilters(opts.filter),
    cols: selectColumns(columns, opts.columns, opts.wide),
  }));
}

/** A list option's error as the usage error a person sees. */
function checked<R>(f: () => R): R {
  try {
    return f();
  } catch (err) {
    if (err instanceof FilterSyntaxError)
      throw new UsageError(err.message, { hint: 'Example: --filter code=GHS' });
    if (err instanceof UnknownKeyError)
      throw new UsageError(err.message, { hint: `Known ${err.what}s: ${err.known.join(', ')}` });
    throw err;
  }
}

export async function printList<T>(
  io: IO,
  rows: T[],
  columns: Column<T>[],
  opts: ListOptions,
): Promise<void> {
  const { filters, cols } = listSetup(columns, opts);
  const kept = checked(() => applyFilters(rows, filters, columns));
  if (opts.json) return printJson(io, kept);
  if (opts.csv) return io.out(renderCsv(kept, cols));
  if (kept.length === 0) return io.note('No rows.');
  // Cut to fit a terminal (or an explicit COLUMNS): a pipe or a file gets every character.
  io.out(await renderTable(kept, cols, fitWidth(io)));
}

/**
 * A writer of stdout in chunks of 64 KiB, waiting for stdout to drain, so that memory stays bounded
 * however much is written; `end` writes what is left.
 */
export function chunkedWriter(io: IO): (text: string, end?: boolean) => Promise<void> {
  let pending = '';
  return async (text, end = false) => {
    pending += text;
    if (pending.length < 64 * 1024 && !end) return;
    const chunk = pending;
    pending = '';
    if (!io.write(chunk)) await once(io.stdout, 'drain');
  };
}

/**
 * printList for rows that come one at a time (history --all): --json and --csv are written as the rows
 * come, waiting for stdout to drain, so that memory stays bounded whatever their number; the same bytes as
 * printList. A table (it needs every row for its widths) and --query (it needs the whole document) take
 * them all first.
 */
export async function streamList<T>(
  io: IO,
  rows: Iterable<T>,
  columns: Column<T>[],
  opts: ListOptions,
): Promise<void> {
  const { filters, cols } = listSetup(columns, opts);
  if ((!opts.json && !opts.csv) || (opts.json && io.query !== undefined))
    return printList(io, [...rows], columns, opts);
  const write = chunkedWriter(io);
  let n = 0;
  if (opts.csv) await write(`${csvHeader(cols)}\n`);
  for (const row of rows) {
    // The filter's keys are checked against the columns and the first row's fields, as printList does
    // against every row's.
    if (n === 0 && checked(() => applyFilters([row], filters, columns)).length === 0) continue;
    if (n > 0 && !matchesFilters(row, filters, columns)) continue;
    if (opts.json) await write(`${n === 0 ? '[\n' : ',\n'}${jsonText(row, 2).replace(/^/gm, '  ')}`);
    else await write(`${csvLine(row, cols)}\n`);
    n++;
  }
  if (opts.json) await write(n === 0 ? '[]\n' : '\n]\n', true);
  else await write('', true);
}
