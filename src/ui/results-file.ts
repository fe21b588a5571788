// A batch's --out file: one record a row, CSV when its name ends in .csv (a header, then a line a row),
// NDJSON otherwise. 0600, and never written through a link (common/out-file.ts). Opened before the first row
// is sent; a write that fails after rows were sent (a full disk) is told to the run's Outputs (exit 15) and
// each record from that row on goes to stdout instead, as NDJSON.
import { OutputFile, type Outputs } from '../common/out-file.js';
import type { RowResult } from '../flows/batch/batch-row.js';
import { csvHeader, csvLine, type Column } from './output.js';

export interface ResultsFile {
  write(result: RowResult): void;
  /** Resolves once every record written is in the file. */
  end(): Promise<void>;
}

/**
 * `instead`: where a record goes once the file failed (stdout); `outputs`: the run's, told of the failure.
 */
export function openResultsFile(
  path: string,
  outputs: Outputs,
  instead: (result: RowResult) => void,
): ResultsFile {
  let rows = 0;
  let firstOut = 0;
  const csv = /\.csv$/i.test(path);
  const file = OutputFile.open(path, 'the results', {
    outputs,
    first: csv ? `${csvHeader(resultColumns)}\n` : undefined,
    sent: () =>
      `after ${rows} row${rows === 1 ? '' : 's'} ended (the results from row ${firstOut}'s on are on stdout)`,
  });
  return {
    write: (res) => {
      rows++;
      if (file.write(csv ? `${csvLine(res, resultColumns)}\n` : `${JSON.stringify(res)}\n`)) return;
      firstOut ||= res.row;
      instead(res);
    },
    end: async () => file.close(),
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
