// Reading a HAR back: the one `--trace` writes (api/har.ts), one inside a support bundle, or one a browser
// saved with every other host's requests in it. Only the API's own calls are kept: a request whose path
// is one of the spec's endpoints under /restapi/v1/. Lenient: a HAR is a file from anywhere, so every field
// is checked before it is used, and an entry that is not an exchange of the API's is left out, never fatal.
import { UsageError } from '../common/errors.js';
import { apiBase, endpointAt, type EndpointId } from './endpoints.js';
import type { Encoding } from './wire.js';

/** One call of the API's, as a trace recorded it. */
export interface RecordedCall {
  /** its place among the HAR's entries, from 1 */
  entry: number;
  method: 'GET' | 'POST';
  /** relative to /restapi/v1/, without the query */
  path: string;
  endpoint: EndpointId;
  /** the host it was sent to */
  origin: string;
  encoding: Encoding;
  /** the request's fields (as the trace shows them: secrets already replaced by ***) */
  body?: Record<string, unknown>;
  /** the answer as recorded; status 0 when the request failed without one */
  response: { status: number; text?: string; error?: string };
}

export interface ReadHar {
  calls: RecordedCall[];
  /** entries that are not calls of the API (other hosts, pages, assets), left out */
  ignored: number;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The fields of a recorded body: JSON (what mpay's traces hold, whatever went out), a form, or multipart. */
export function bodyFields(postData: unknown): Record<string, unknown> | undefined {
  const p = obj(postData);
  if (!p) return undefined;
  const text = typeof p.text === 'string' ? p.text : undefined;
  const mime = typeof p.mimeType === 'string' ? p.mimeType.toLowerCase() : '';
  if (text !== undefined && /^\s*\{/.test(text)) {
    try {
      return obj(JSON.parse(text));
    } catch {
      // not JSON: read as a form below
    }
  }
  if (Array.isArray(p.params)) {
    const out: Record<string, unknown> = {};
    for (const param of p.params) {
      const q = obj(param);
      if (q && typeof q.name === 'string') out[q.name] = typeof q.value === 'string' ? q.value : '';
    }
    if (Object.keys(out).length) return out;
  }
  if (text === undefined) return undefined;
  if (mime.includes('multipart/form-data')) {
    const out: Record<string, unknown> = {};
    for (const m of text.matchAll(/name="([^"]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([^\r\n]*)/g))
      out[m[1]!] = m[2]!;
    return out;
  }
  if (mime.includes('x-www-form-urlencoded') || /^[\w%.-]+=/.test(text))
    return Object.fromEntries(new URLSearchParams(text));
  return undefined;
}

/** The API path of a URL (after /restapi/v1/), if it is one. */
export function apiPathOf(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const at = u.pathname.indexOf(apiBase);
  return at < 0 ? undefined : u.pathname.slice(at + apiBase.length).replace(/\/+$/, '');
}

/** The API's calls of a HAR document's text, in the order they were made. */
export function readHar(text: string, name = 'the trace'): ReadHar {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${name} is not JSON (a HAR file is): ${(err as Error).message}`, {
      hint: 'Give a HAR written with --trace, or a support bundle (.tar.gz) holding one',
    });
  }
  const entries = obj(obj(doc)?.log)?.entries;
  if (!Array.isArray(entries))
    throw new UsageError(`${name} is not a HAR file: it has no log.entries`, {
      hint: 'Give a HAR written with --trace, or a support bundle (.tar.gz) holding one',
    });
  const calls: RecordedCall[] = [];
  let ignored = 0;
  entries.forEach((e, i) => {
    const req = obj(obj(e)?.request);
    const res = obj(obj(e)?.response);
    const method = typeof req?.method === 'string' ? req.method.toUpperCase() : '';
    const url = typeof req?.url === 'string' ? req.url : '';
    const path = apiPathOf(url);
    const ep = path === undefined ? undefined : endpointAt(method, path);
    if (!req || !path || !ep) {
      ignored++;
      return;
    }
    const content = obj(res?.content);
    const status = typeof res?.status === 'number' ? res.status : 0;
    const mime = String(obj(req.postData)?.mimeType ?? '').toLowerCase();
    calls.push({
      entry: i + 1,
      method: method as 'GET' | 'POST',
      path,
      endpoint: ep.id,
      origin: new URL(url).origin,
      // a form as the browser sent it; else as mpay sends the endpoint (its traces record bodies as JSON)
      encoding: method !== 'GET' && /multipart|x-www-form-urlencoded/.test(mime) ? 'multipart' : ep.encoding,
      body: method === 'POST' ? (bodyFields(req.postData) ?? {}) : undefined,
      response: {
        status,
        text: typeof content?.text === 'string' ? decoded(content) : undefined,
        error: typeof obj(e)?._error === 'string' ? String(obj(e)!._error) : undefined,
      },
    });
  });
  return { calls, ignored };
}

function decoded(content: Record<string, unknown>): string {
  const text = String(content.text);
  return content.encoding === 'base64' ? Buffer.from(text, 'base64').toString('utf8') : text;
}

/** The data array of the last successful merchant currencies answer of a HAR, if it holds one. */
export function merchantCurrenciesOf(read: ReadHar): unknown[] | undefined {
  for (const c of [...read.calls].reverse()) {
    if (c.endpoint !== 'merchantCurrencies' && c.endpoint !== 'publicMerchantCurrencies') continue;
    if (c.response.status < 200 || c.response.status >= 300 || !c.response.text) continue;
    try {
      const data = obj(JSON.parse(c.response.text))?.data;
      if (Array.isArray(data) && data.length) return data;
    } catch {
      // not JSON: look further back
    }
  }
  return undefined;
}
