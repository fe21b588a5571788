// A batch's problems, every one at once with its row, before anything is sent: a table on stderr, or a
// record a problem on stdout with --json (which a script reads as it reads the results). In the table,
// one problem found on many rows (the same column, the same words) is one line with its rows' numbers.
import type { RowProblem } from '../flows/batch/batch-check.js';
import type { IO } from '../io/io.js';
import { renderTable } from './output.js';
import { printJson } from './print.js';

/** Row ranges shown on one line of the table before the rest are counted ("… 212 rows in all"). */
const shownRanges = 6;

/** `1-3, 7, 9-300`: the row numbers, ascending, runs as ranges; the first few when there are many. */
export function rowRanges(rows: number[]): string {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges.length > shownRanges
    ? `${ranges.slice(0, shownRanges).join(', ')}, … ${sorted.length} rows in all`
    : ranges.join(', ');
}

/** The problems with the same column and words as one, in the order each was first found. */
export function groupProblems(
  problems: RowProblem[],
): Array<{ rows: string; field: string; message: string }> {
  const groups = new Map<string, { rows: number[]; field: string; message: string }>();
  for (const p of problems) {
    const key = `${p.field}\u0000${p.message}`;
    const g = groups.get(key);
    if (g) g.rows.push(p.row);
    else groups.set(key, { rows: [p.row], field: p.field, message: p.message });
  }
  return [...groups.values()].map((g) => ({ rows: rowRanges(g.rows), field: g.field, message: g.message }));
}

export async function printProblems(
  io: IO,
  problems: RowProblem[],
  json: boolean | undefined,
): Promise<void> {
  if (json) for (const p of problems) await printJson(io, p, 0);
  else {
    const groups = groupProblems(problems);
    io.errLine(
      await renderTable(
        groups,
        [
          { key: 'rows', header: groups.length < problems.length ? 'Rows' : 'Row', identifier: true },
          { key: 'field', header: 'Column', identifier: true },
          { key: 'message', header: 'Problem', wrap: true },
        ],
        io.stderrTableWidth,
      ),
    );
  }
}
