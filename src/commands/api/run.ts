// `mpay api METHOD PATH`: any endpoint of the API, authenticated as every other command is, the answer
// printed as the server sent it (pretty on a terminal, byte for byte in a pipe) and the exit code that of
// its status (README table). As `gh api` and `stripe get/post` do.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Client } from '../../api/client.js';
import { moneyEndpointOf, type MoneyEndpoint } from '../../api/money.js';
import { endpointAt } from '../../api/endpoints.js';
import { isSecretName } from '../../api/redact.js';
import type { DryRun, Encoding, RawAnswer } from '../../api/wire.js';
import type { MoneyGate } from '../../flows/money-gate.js';
import type { FlowDeps } from '../../flows/types.js';
import type { Kind, Step } from '../../journal/records.js';
import { UsageError } from '../../api/errors.js';
import { failureError, parseJsonBody } from '../../api/response.js';
import type { Context } from '../../config/context.js';
import type { Factory } from '../../factory.js';
import { printJson } from '../../ui/print.js';

export interface ApiOptions {
  method: string;
  path: string;
  /** -F key=value: numbers, true/false, null and @file read as such */
  typed?: string[];
  /** -f key=value: strings as given */
  raw?: string[];
  /** --input FILE or -: the whole body, a JSON object */
  input?: string;
  /** --encoding (or --form): the body's encoding, else the one mpay uses for that endpoint */
  encoding?: 'json' | 'form';
  /** --json: the answer as one JSON document on stdout, a failure as the error document, as every command */
  json?: boolean;
  /** add merchant_key, site_id and api_key from the profile */
  credentials?: boolean;
  /** -H 'name: value' */
  header?: string[];
  /** print the status line and the headers before the body */
  include?: boolean;
  dryRun?: boolean;
  /** --max-size: the largest answer read, in MB */
  maxSizeMb?: number;
  /** the body as an object (a request step of `mpay run`), merged under -F, -f and --credentials */
  body?: Record<string, unknown>;
}

/** PATH relative to /restapi/v1, or a full path, or a URL on the profile's own host. */
export function apiPath(given: string, baseUrl: string): string {
  let path = given.trim();
  if (/^https?:\/\//i.test(path)) {
    const url = new URL(path);
    if (url.origin !== new URL(baseUrl).origin)
      throw new UsageError(`${url.origin} is not the profile's server (${new URL(baseUrl).origin})`, {
        hint: 'Give a path, or use --base-url for another server',
      });
    path = `${url.pathname}${url.search}`;
  }
  path = path.replace(/^\/+/, '').replace(/^restapi\/v1\//, '');
  // A path is the API's: one whose dot segments climb out of /restapi/v1/ (the sandbox's own /_sandbox
  // routes, another service on the host) is refused, as a path of another server is.
  const base = new URL('http://h/restapi/v1/');
  if (!new URL(path, base).pathname.startsWith(base.pathname))
    throw new UsageError(`${given.trim()} climbs out of the API's path (/restapi/v1/)`, {
      hint: 'Give a path of the API (under /restapi/v1/)',
    });
  return path;
}

function field(pair: string, flag: string): [string, string] {
  const i = pair.indexOf('=');
  if (i <= 0) throw new UsageError(`Invalid ${flag} "${pair}": expected key=value`);
  return [pair.slice(0, i), pair.slice(i + 1)];
}

/** -F's value: a number, true, false, null, @file's contents, else the string. */
function typedValue(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v.startsWith('@')) {
    try {
      return readFileSync(v.slice(1), 'utf8').replace(/\n$/, '');
    } catch (err) {
      throw new UsageError(`Cannot read ${v.slice(1)} for -F: ${(err as Error).message}`);
    }
  }
  return v;
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
  const req = await requestOf(opts, ctx, f);
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
  const answer = endpoint
    ? await sendMoney(endpoint, req, bearer, client, f)
    : await client.raw({ ...req, bearer });
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

/** A dry run of a money request: printed for a live server only with --yes, under the live header. */
async function printMoney(
  req: Awaited<ReturnType<typeof requestOf>>,
  bearer: boolean,
  client: Client,
  gate: MoneyGate,
): Promise<void> {
  gate.printable(`${req.method} /${req.path}`);
  try {
    await client.raw({ ...req, bearer });
  } catch (err) {
    if (gate.liveHeader && (err as DryRun).isDryRun) (err as DryRun).request.liveHeader = gate.liveHeader;
    throw err;
  }
}

/**
 * A request to a money endpoint, however its path was spelled: through the money gate like every flow's
 * step (the live question or --yes, the transaction's lock, the journal's 'sent' line), journaled under
 * the transaction it names (its reference, or the hash token's record), or a record of its own keyed by
 * what it carries. Its answer, whatever its status, is printed as any other.
 */
async function sendMoney(
  endpoint: MoneyEndpoint,
  req: Awaited<ReturnType<typeof requestOf>>,
  bearer: boolean,
  client: Client,
  f: Factory,
): Promise<RawAnswer> {
  const { journaledAnswer } = await import('../../flows/journaled.js');
  const place = await f.place();
  const journal = await f.journal(undefined, { at: place });
  const body = req.body ?? {};
  const text = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : String(v));
  const hash = endpoint.step === 'initiate' ? undefined : text(body.hash_token);
  const known = hash ? journal.find(hash) : undefined;
  // An initiate under a reference the journal holds is refused, as a flow refuses it (flows/payment.ts).
  const taken = endpoint.step === 'initiate' ? text(body.customer_transaction_id) : undefined;
  if (taken) {
    const { refuseKnownReference } = await import('../../flows/payment.js');
    refuseKnownReference(
      taken,
      { journal, place },
      { noun: 'customer_transaction_id', give: 'customer_transaction_id' },
    );
  }
  const reference =
    (endpoint.step === 'initiate' ? text(body.customer_transaction_id) : (known?.reference ?? hash)) ??
    `api-${randomBytes(6).toString('hex')}`;
  const kind: Kind = endpoint.kind ?? known?.kind ?? 'deposit';
  const step: Step =
    endpoint.step === 'processed' && kind === 'withdraw' && body.otp === undefined ? 'otp' : endpoint.step;
  const deps = { client, journal, place, gate: await f.gate(), env: place.env } satisfies FlowDeps;
  return journaledAnswer(
    deps,
    { reference, kind, step, hash_token: hash, data: { via: 'mpay api', ...journalFields(body) } },
    `${req.method} /${endpoint.path} (mpay api)`,
    (via) => client.raw({ ...req, bearer, via }),
    (a) => {
      const data = dataOf(a.text);
      return step === 'initiate'
        ? { hash_token: text(data?.has_token), data: { status: 'initiated' } }
        : { data: { status: text(data?.status), transaction_id: text(data?.transaction_id) } };
    },
    // An initiate without a reference carries none: its ticket is for exactly that.
    { value: endpoint.step === 'initiate' ? text(body.customer_transaction_id) : hash },
  );
}

/** The request's fields as the journal keeps them: never a credential or a code (journal.ts refuses those). */
function journalFields(body: Record<string, unknown>): Record<string, unknown> {
  // what the one list of secret names (api/redact.ts) names, and the site id, stay out of the journal
  const { site_id: _s, ...kept } = body;
  const rest = Object.fromEntries(Object.entries(kept).filter(([k]) => !isSecretName(k)));
  const {
    customer_first_name: first_name,
    customer_last_name: last_name,
    customer_phone: phone,
    customer_email: email,
    currency_code: currency,
    country_code: country,
    ...others
  } = rest;
  const customer = { first_name, last_name, phone, email };
  // as `mpay status` records them: the status asked for is not the transaction's status (the API may
  // refuse it), and a gateway id is a number
  const { status, gateway_id, ...fields } = others;
  const gateway = Number(gateway_id);
  return {
    ...fields,
    ...(status === undefined ? {} : { requested_status: status }),
    ...(gateway_id === undefined ? {} : { gateway_id: Number.isInteger(gateway) ? gateway : gateway_id }),
    // as a flow records it: the amount as written (-F makes 10 a number)
    ...(others.amount === undefined ? {} : { amount: String(others.amount) }),
    ...(currency === undefined ? {} : { currency }),
    ...(country === undefined ? {} : { country }),
    ...(Object.values(customer).some((v) => v !== undefined) ? { customer } : {}),
  };
}

function dataOf(text: string): Record<string, unknown> | undefined {
  try {
    const d = (JSON.parse(text) as { data?: unknown }).data;
    return d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The request the flags describe: method, path, body (from --input, -F, -f, --credentials), encoding, headers. */
async function requestOf(opts: ApiOptions, ctx: Context, f: Factory) {
  const method = opts.method.toUpperCase();
  if (method !== 'GET' && method !== 'POST')
    throw new UsageError(`Unsupported method ${opts.method}`, {
      hint: 'The API has GET and POST endpoints only',
    });
  const path = apiPath(opts.path, ctx.baseUrl);
  let body = opts.input === undefined ? opts.body && { ...opts.body } : await inputBody(opts.input, f);
  for (const p of opts.typed ?? []) {
    const [k, v] = field(p, '-F');
    (body ??= Object.create(null) as Record<string, unknown>)[k] = typedValue(v);
  }
  for (const p of opts.raw ?? []) {
    const [k, v] = field(p, '-f');
    (body ??= Object.create(null) as Record<string, unknown>)[k] = v;
  }
  if (opts.credentials) {
    const c = ctx.credentials;
    const site = c.siteId && /^\d+$/.test(c.siteId) ? Number(c.siteId) : c.siteId;
    body = { merchant_key: c.merchantKey, site_id: site, api_key: c.apiKey, ...body };
  }
  if (method === 'GET' && body)
    throw new UsageError('A GET takes no fields', { hint: 'Put a query in the path: /x?a=1' });
  const encoding: Encoding =
    method === 'GET'
      ? 'none'
      : opts.encoding === 'form'
        ? 'multipart'
        : opts.encoding === 'json'
          ? 'json'
          : endpointAt(method, path.split('?')[0]!)?.encoding === 'multipart'
            ? 'multipart'
            : 'json';
  const headers = Object.fromEntries(
    (opts.header ?? []).map((h) => {
      const i = h.indexOf(':');
      if (i <= 0) throw new UsageError(`Invalid -H "${h}": expected 'name: value'`);
      return [h.slice(0, i).trim().toLowerCase(), h.slice(i + 1).trim()];
    }),
  );
  return {
    method: method as 'GET' | 'POST',
    path,
    encoding,
    headers,
    body: body ?? (method === 'POST' ? {} : undefined),
  };
}

/** --input FILE (or - for stdin): a JSON object. */
async function inputBody(input: string, f: Factory): Promise<Record<string, unknown>> {
  const text = input === '-' ? await f.io.readStdin() : readFileSync(input, 'utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input is not JSON: ${(err as Error).message}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new UsageError('--input must hold a JSON object');
  return body as Record<string, unknown>;
}

/** The answer as the server sent it: byte for byte in a pipe, pretty and cleaned on a terminal. */
function printAnswer(
  res: {
    status: number;
    statusMessage?: string;
    headers: Record<string, string | string[] | undefined>;
    text: string;
  },
  opts: ApiOptions,
  f: Factory,
): void {
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
