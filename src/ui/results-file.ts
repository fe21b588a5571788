// A batch's --out file: one record a row, CSV when its name ends in .csv (a header, then a line a row),
// NDJSON otherwise. 0600, and never written through a link (api/out-file.ts).
import { createWriteStream } from 'node:fs';
import { clearForOutput } from '../api/out-file.js';
import type { RowResult } from '../flows/batch-row.js';
import { csvHeader, csvLine, type Column } from './output.js';

export interface ResultsFile {
  write(result: RowResult): void;
  /** Resolves once every record written is in the file. */
  end(): Promise<void>;
}

export function openResultsFile(path: string): ResultsFile {
  clearForOutput(path, 'the results');
  const out = createWriteStream(path, { mode: 0o600, flags: 'wx' });
  const csv = /\.csv$/i.test(path);
  if (csv) out.write(`${csvHeader(resultColumns)}\n`);
  return {
    write: (res) => void out.write(csv ? `${csvLine(res, resultColumns)}\n` : `${JSON.stringify(res)}\n`),
    end: () => new Promise<void>((resolve) => out.end(resolve)),
  };
}

/** The columns of a `--out results.csv` file: the NDJSON record's fields, the error's two flattened. */
const resultColumns: Column<RowResult>[] = [
  { key: 'row' },
  { key: 'reference', identifier: true },
  { key: 'outcome' },
  { key: 'status' },
  { key: 'hash_token', identifier: true },
  { key: 'transaction_id', identifier: true },
  { key: 'fee' },
  { key: 'next' },
  { key: 'error_kind', get: (r) => r.error?.kind },
  { key: 'error_message', get: (r) => r.error?.message },
];
