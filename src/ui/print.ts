// How a command's result reaches stdout: the one JSON document with --json, else what `human` renders.
import type { PreparedRequest } from '../api/client.js';
import type { IO } from '../io.js';
import { dryRunView } from './dry-run.js';

export async function printResult(
  io: IO,
  json: boolean | undefined,
  data: unknown,
  human: () => Promise<string> | string,
): Promise<void> {
  if (json) {
    io.out(JSON.stringify(data, null, 2));
    return;
  }
  const text = await human();
  if (text) io.out(text);
}

/** --dry-run: the request, redacted, and the same as a curl command line. */
export async function printDryRun(io: IO, json: boolean | undefined, req: PreparedRequest): Promise<void> {
  const view = dryRunView(req);
  await printResult(
    io,
    json,
    { dry_run: true, request: view.request, curl: view.curl },
    () => `${view.text}\n\n${view.curl}`,
  );
}
