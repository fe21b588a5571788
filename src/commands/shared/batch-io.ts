// What a batch command's run (flows/batch/batch-run.ts, runBatchCommand) needs of the command: the IO, the
// Factory's part, stdin spooled to a private file (stdin-spool.ts), and how the progress, the problems and
// the results are drawn and written (ui/). Each batch command's run.ts hands its flow to runBatchCommand
// with batchSide(f).
import type { Factory } from '../../factory.js';
import type { BatchSide } from '../../flows/batch/batch-run.js';
import { batchProgress } from '../../ui/batch-progress.js';
import { printJson } from '../../ui/print.js';
import { printProblems } from '../../ui/problem-table.js';
import { openResultsFile } from '../../ui/results-file.js';
import { spoolStdin } from './stdin-spool.js';

export type { BatchOptions } from '../../flows/batch/batch-run.js';

/** The side of a batch's run that the Factory, the IO and ui/ give. */
export function batchSide(f: Factory): BatchSide {
  return {
    io: f.io,
    flowDeps: (opts) => f.flowDeps(opts),
    journal: () => f.journal(),
    place: () => f.place(),
    spoolStdin: (dir) => spoolStdin(f.io, dir),
    progress: (total) => batchProgress(f.io, total),
    printRow: (res) => printJson(f.io, res, 0),
    printProblems: (problems, json) => printProblems(f.io, problems, json),
    openResults: (path, instead) => openResultsFile(path, f.outputs, instead),
  };
}
