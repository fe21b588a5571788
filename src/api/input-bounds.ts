// What mpay reads from a file it is handed is bounded as a whole (issue 46): a support bundle's unpacked
// size and each of its entries, a trace, a scenario or variables file, a batch file's row. Each bound is
// refused with exit 2 and a message naming it, before anything is sent and without reading past it.
// The numbers are far above any real input (a support ticket's traces are kilobytes) and far below what
// would take the machine's memory; the tests pass smaller ones.
import { statSync } from 'node:fs';
import { UsageError } from '../common/errors.js';

export interface InputBounds {
  /** a support bundle's entries together, unpacked */
  bundleBytes: number;
  /** one entry of a bundle, unpacked (a trace or any other file) */
  bundleEntryBytes: number;
  /** a trace (HAR) given as a file */
  traceBytes: number;
  /** a scenario file, or a --vars file */
  scenarioBytes: number;
  /** one row of a batch file (a CSV record, an NDJSON line) */
  rowBytes: number;
}

export const inputBounds: InputBounds = {
  bundleBytes: 64 * 2 ** 20,
  bundleEntryBytes: 32 * 2 ** 20,
  traceBytes: 64 * 2 ** 20,
  scenarioBytes: 16 * 2 ** 20,
  rowBytes: 2 ** 20,
};

/** A size in words: "64 MB", "512 KB", "100 bytes". */
export function sizeText(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MB`;
  if (bytes >= 2 ** 10 && bytes % 2 ** 10 === 0) return `${bytes / 2 ** 10} KB`;
  return `${bytes} bytes`;
}

/** The refusal of an input over its bound: exit 2, the bound named. */
export function overBound(what: string, bound: number, hint?: string): UsageError {
  return new UsageError(`Nothing was sent: ${what} is larger than mpay reads (${sizeText(bound)})`, {
    hint: hint ?? 'Give a smaller file: the inputs mpay reads are kilobytes',
  });
}

/** Refuses a file larger than `bound` before any of it is read (a file that cannot be stat'ed is left to the reader). */
export function checkFileSize(file: string, bound: number, what: string): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (st?.isFile() && st.size > bound) throw overBound(`${what} ${file} (${st.size} bytes)`, bound);
}
