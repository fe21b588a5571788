// A batch's file read as a stream of rows: CSV with a header row (its separator, a comma or a semicolon,
// from the header) or NDJSON; a column mpay does not know is a usage error before anything is sent.
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { Transform } from 'node:stream';
import { createInterface } from 'node:readline';
import { UsageError } from '../../common/errors.js';
import { inputBounds, overBound } from '../../api/input-bounds.js';
import { batchColumns, type BatchRow } from './batch-check.js';
import { importLazily } from '../../lazy-import.js';

function checkColumns(keys: string[], known: readonly string[]): void {
  const unknown = keys.filter((k) => !known.includes(k));
  if (unknown.length)
    throw new UsageError(`Unknown column${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
      hint: `Known columns: ${known.join(', ')}`,
    });
}

/**
 * The separator of a CSV file, from its header: a comma, or the semicolon that spreadsheets in many
 * locales write (where the comma is the decimal mark) when the header has more of those.
 */
function csvDelimiter(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const header = buf.toString('utf8', 0, n).split(/\r?\n/)[0] ?? '';
    const count = (c: string) => header.split(c).length - 1;
    return count(';') > count(',') ? ';' : ',';
  } finally {
    closeSync(fd);
  }
}

/** The rows of the file, one at a time. */
export async function* readRows(
  path: string,
  format: 'csv' | 'ndjson',
  known: readonly string[] = batchColumns,
  rowBytes = inputBounds.rowBytes,
): AsyncGenerator<BatchRow> {
  let row = 0;
  if (format === 'ndjson') {
    const lines = createInterface({ input: boundedLines(path, rowBytes), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      row++;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        throw new UsageError(`Row ${row} is not JSON: ${(err as Error).message}`);
      }
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw new UsageError(`Row ${row} is not a JSON object`);
      checkColumns(Object.keys(value), known);
      yield {
        row,
        values: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v == null ? '' : String(v)])),
      };
    }
    return;
  }
  const { parse } = await importLazily<typeof import('csv-parse')>('csv-parse');
  let columns = 0;
  const parser = createReadStream(path).pipe(
    parse({
      delimiter: csvDelimiter(path),
      columns: (header: string[]) => {
        const keys = header.map((h) => h.trim());
        columns = keys.length;
        checkColumns(keys, known);
        return keys;
      },
      skip_empty_lines: true,
      trim: true,
      // a record (a quote never closed, a line without end) is bounded: refused, not buffered whole
      max_record_size: rowBytes,
    }),
  );
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>)
      yield { row: ++row, values: record };
  } catch (err) {
    throw csvProblem(err, row + 1, columns, rowBytes);
  }
}

/**
 * A file csv-parse cannot read (a row with more or fewer values than the header, a quote left open) is
 * bad input, exit 2, said with its row: not the parser's own words and exit 1.
 */
function csvProblem(err: unknown, row: number, columns: number, rowBytes: number): unknown {
  const e = err as { code?: string; lines?: number; record?: unknown[] };
  if (e.code === 'CSV_MAX_RECORD_SIZE')
    return overBound(`the record at line ${e.lines ?? '?'} of the batch file`, rowBytes);
  if (!e.code?.startsWith('CSV_')) return err;
  // csv-parse counts an open quote's lines to the end of the file: its line would be the last one
  const line = e.lines && e.code !== 'CSV_QUOTE_NOT_CLOSED' ? ` (line ${e.lines} of the file)` : '';
  const values = e.record?.length;
  const what = /^CSV_RECORD_(INCONSISTENT|DONT_MATCH)/.test(e.code)
    ? `has ${values ?? 'another number of'} value${values === 1 ? '' : 's'} where the header has ${columns} columns`
    : e.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'opens a quote that is never closed'
      : `cannot be read as CSV: ${(err as Error).message}`;
  return new UsageError(`Row ${row}${line} ${what}`, {
    hint: 'Each row has one value a column, separated as the header is; a value with the separator or a quote in it is quoted ("…", a quote inside doubled)',
  });
}

/**
 * An NDJSON file as a stream whose lines are bounded: a line longer than `bound` bytes stops the read and
 * is refused (readline would otherwise hold the whole line, however long, in memory).
 */
function boundedLines(path: string, bound: number): Transform {
  let run = 0;
  let line = 1;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      let from = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
        if (run + nl - from > bound) return done(overBound(`line ${line} of the batch file`, bound));
        run = 0;
        line++;
        from = nl + 1;
      }
      run += chunk.length - from;
      if (run > bound) return done(overBound(`line ${line} of the batch file`, bound));
      done(null, chunk);
    },
  });
  const input = createReadStream(path);
  input.on('error', (err) => check.destroy(err));
  return input.pipe(check);
}
