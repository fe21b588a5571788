// How a command's result reaches stdout: the one JSON document with --json, else what `human` renders.
import type { PreparedRequest } from '../api/wire.js';
import type { Secrets } from '../api/redact.js';
import type { IO } from '../io/io.js';
import { dryRunView } from './dry-run.js';
import { jsonText } from './output.js';

/**
 * The one place a --json document reaches stdout: whole, or filtered by --query. A query that fails on
 * the result (the command itself succeeded) prints the whole document with a warning, never an error
 * exit after a payment went through.
 */
export async function printJson(io: IO, document: unknown, indent = 2): Promise<void> {
  if (io.query === undefined) return io.out(jsonText(document, indent));
  const { applyQuery } = await import('./query.js');
  let result: unknown;
  try {
    result = applyQuery(io.query, document);
  } catch (err) {
    io.warn(`--query failed on the result (${(err as Error).message}); printing the whole document`);
    return io.out(jsonText(document, indent));
  }
  io.out(jsonText(result, indent));
}

/**
 * The width a table or key/value screen must fit: the terminal's; in a pipe or a file, COLUMNS when it is
 * set (a person asked for it); else none, and every character comes (io.tableWidth).
 */
export function fitWidth(io: IO): number | undefined {
  return io.tableWidth;
}

/**
 * A command's result: its JSON document with --json, else what `human` renders, as prose folded to a
 * terminal's width (io.say; tables in it already fit); `verbatim` for what a person pastes or saves whole
 * (a script, a curl command line, JSON).
 */
export async function printResult(
  io: IO,
  json: boolean | undefined,
  data: unknown,
  human: () => Promise<string> | string,
  how: 'prose' | 'verbatim' = 'prose',
): Promise<void> {
  if (json) return printJson(io, data);
  const text = await human();
  if (!text) return;
  if (how === 'verbatim') io.out(text);
  else io.say(text);
}

/** --dry-run: the request, redacted, and the same as a curl command line. */
export async function printDryRun(
  io: IO,
  json: boolean | undefined,
  req: PreparedRequest,
  secrets: Secrets,
): Promise<void> {
  const view = dryRunView(req, secrets);
  await printResult(
    io,
    json,
    { dry_run: true, request: view.request, curl: view.curl },
    () => `${view.text}\n\n${view.curl}`,
    'verbatim',
  );
}
