// The request `mpay api` (and a request step of `mpay run`) describes: method, path, body (from --input,
// -F, -f, --credentials, or a scenario's object), encoding and headers, checked before anything is sent.
import { readFileSync } from 'node:fs';
import { UsageError } from '../../common/errors.js';
import { endpointAt } from '../../api/endpoints.js';
import type { Encoding } from '../../api/wire.js';
import type { Context } from '../../config/context.js';

/** What describes the request, of `mpay api`'s options (commands/api/run.ts). */
export interface ApiRequestOptions {
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
  /** add merchant_key, site_id and api_key from the profile */
  credentials?: boolean;
  /** -H 'name: value' */
  header?: string[];
  /** the body as an object (a request step of `mpay run`), merged under -F, -f and --credentials */
  body?: Record<string, unknown>;
}

/** A request as the client's `raw` sends it (its bearer added by the caller). */
export interface ApiRequest {
  method: 'GET' | 'POST';
  path: string;
  encoding: Encoding;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
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
 * The request the flags describe: method, path, body (from --input, -F, -f, --credentials), encoding,
 * headers. `readStdin`: the run's standard input, for --input -.
 */
export async function requestOf(
  opts: ApiRequestOptions,
  ctx: Context,
  readStdin: () => Promise<string>,
): Promise<ApiRequest> {
  const method = opts.method.toUpperCase();
  if (method !== 'GET' && method !== 'POST')
    throw new UsageError(`Unsupported method ${opts.method}`, {
      hint: 'The API has GET and POST endpoints only',
    });
  const path = apiPath(opts.path, ctx.baseUrl);
  let body =
    opts.input === undefined ? opts.body && { ...opts.body } : await inputBody(opts.input, readStdin);
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
async function inputBody(input: string, readStdin: () => Promise<string>): Promise<Record<string, unknown>> {
  const text = input === '-' ? await readStdin() : readFileSync(input, 'utf8');
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
