// `mpay api METHOD PATH`: any endpoint of the API, authenticated as every other command is, the answer
// printed as the server sent it (pretty on a terminal, byte for byte in a pipe) and the exit code that of
// its status (README table). As `gh api` and `stripe get/post` do. The request is read and checked in
// flows/api-call/request.ts; a money endpoint goes through the gate and the journal (flows/api-call/money-call.ts).
import { moneyEndpointOf } from '../../api/money.js';
import type { RawAnswer } from '../../api/wire.js';
import { failureError, parseJsonBody } from '../../api/response.js';
import type { Factory } from '../../factory.js';
import { printMoney, sendMoney } from '../../flows/api-call/money-call.js';
import { requestOf, type ApiRequestOptions } from '../../flows/api-call/request.js';
import { printJson } from '../../ui/print.js';

export interface ApiOptions extends ApiRequestOptions {
  /** --json: the answer as one JSON document on stdout, a failure as the error document, as every command */
  json?: boolean;
  /** print the status line and the headers before the body */
  include?: boolean;
  dryRun?: boolean;
  /** --max-size: the largest answer read, in MB */
  maxSizeMb?: number;
}

/**
 * The request the options describe, sent as `mpay api` sends it: a money endpoint through the gate and
 * the journal (sendMoney), any other as it is. The answer whatever its status; a dry run prints instead.
 */
export async function callApi(
  opts: ApiOptions,
  f: Factory,
): Promise<{ answer?: RawAnswer; method: string; path: string }> {
  const ctx = await f.context();
  const req = await requestOf(opts, ctx, () => f.io.readStdin());
  const client = await f.client({
    dryRun: opts.dryRun,
    maxBodyBytes: opts.maxSizeMb === undefined ? undefined : opts.maxSizeMb * 2 ** 20,
  });
  const bearer = !/^(public\/|auth\/)/.test(req.path);
  const endpoint = moneyEndpointOf(client.urlOf(req.path));
  if (endpoint && opts.dryRun) {
    await printMoney(req, bearer, client, await f.gate());
    return { method: req.method, path: req.path };
  }
  if (!endpoint) return { answer: await client.raw({ ...req, bearer }), method: req.method, path: req.path };
  const place = await f.place();
  const journal = await f.journal(undefined, { at: place });
  const answer = await sendMoney(endpoint, req, bearer, { client, journal, place, gate: () => f.gate() });
  return { answer, method: req.method, path: req.path };
}

export async function runApi(opts: ApiOptions, f: Factory): Promise<void> {
  const { answer: res, ...req } = await callApi(opts, f);
  if (!res) return;
  const what = `${req.method} /${req.path}`;
  if (opts.json) {
    // As every command's --json: the answer's document on stdout, or the error document of its status
    // (the API's message and per-field messages), and that status's exit code.
    if (res.status >= 300) throw failureError(what, res.status, res.contentType, res.text);
    return printJson(f.io, parseJsonBody(what, res.status, res.contentType, res.text));
  }
  printAnswer(res, opts, f);
  if (res.status >= 300) {
    // The same reading as every other command's (api/response.ts): a 404 in the API's own shape is a
    // transaction not initiated (5); any other 404 is a route that is not there (7, check the base URL).
    const e = failureError(what, res.status, res.contentType, res.text);
    f.io.note(
      `${f.io.stdoutIsTTY ? '' : '\n'}mpay: HTTP ${res.status} from ${req.method} /restapi/v1/${req.path}`,
    );
    if (e.kind === 'server' && res.status === 404)
      f.io.note('hint: not a route of the API here; check the path and the base URL');
    f.io.exitCode = e.exitCode;
  }
}

/** The answer as the server sent it: byte for byte in a pipe, pretty and cleaned on a terminal. */
function printAnswer(res: RawAnswer, opts: ApiOptions, f: Factory): void {
  if (opts.include) {
    f.io.out(`HTTP/1.1 ${res.status} ${res.statusMessage}`);
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) {
        const line = `${k}: ${Array.isArray(v) ? v.join(', ') : v}`;
        f.io.out(line);
      }
    f.io.out('');
  }
  let shown = res.text;
  if (f.io.stdoutIsTTY) {
    try {
      shown = JSON.stringify(JSON.parse(res.text), null, 2);
    } catch {
      // not JSON: as it came
    }
  }
  // (on a terminal, io.write makes escapes, C1 controls and bidi overrides visible)
  if (shown) f.io.write(shown.endsWith('\n') || !f.io.stdoutIsTTY ? shown : `${shown}\n`);
}
