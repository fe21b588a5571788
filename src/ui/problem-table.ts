// A batch's problems, every one at once with its row, before anything is sent: a table on stderr, or a
// record a problem on stdout with --json (which a script reads as it reads the results).
import type { RowProblem } from '../flows/batch-check.js';
import type { IO } from '../io/io.js';
import { renderTable } from './output.js';
import { printJson } from './print.js';

export async function printProblems(
  io: IO,
  problems: RowProblem[],
  json: boolean | undefined,
): Promise<void> {
  if (json) for (const p of problems) await printJson(io, p, 0);
  else
    io.stderr.write(
      `${await renderTable(
        problems,
        [
          { key: 'row', header: 'Row', identifier: true },
          { key: 'field', header: 'Column', identifier: true },
          { key: 'message', header: 'Problem' },
        ],
        io.stderrTableWidth,
      )}\n`,
    );
}
