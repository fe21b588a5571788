// What goes over the wire, apart from the client that sends it: a request as it would be sent (what
// --dry-run prints), the dry run that stands in for sending, the encodings, and an answer as it came.
import type { Response } from 'got';

export type Encoding = 'none' | 'json' | 'multipart';

/** A request as the client would send it, for --dry-run. Secrets are redacted by the caller's choice. */
export interface PreparedRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  encoding: Encoding;
  /** as it goes out: strings for form-data, the values' own types for JSON */
  body?: Record<string, unknown>;
  /** a dry run's request that would move money on a live server: the line its printed curl starts with */
  liveHeader?: string;
}

/** Thrown instead of sending when the client runs dry; commands print it and exit 0. */
export class DryRun extends Error {
  readonly isDryRun = true;
  constructor(readonly request: PreparedRequest) {
    super('dry run');
  }
}

/** An answer as the server sent it: `mpay api` prints it whatever its status. */
export interface RawAnswer {
  status: number;
  statusMessage: string;
  headers: Record<string, string | string[] | undefined>;
  contentType?: string;
  text: string;
}

export function answer(res: Response<string>): RawAnswer {
  return {
    status: res.statusCode,
    statusMessage: res.statusMessage ?? '',
    headers: res.headers,
    contentType: res.headers['content-type'],
    text: res.body ?? '',
  };
}

/** The request for a call: its headers, and its body as it goes out. */
export function prepareRequest(
  c: {
    method: 'GET' | 'POST';
    encoding: Encoding;
    body?: Record<string, unknown>;
    /** `mpay api`: the caller's headers, and nulls kept in a JSON body */
    raw?: { headers?: Record<string, string> };
  },
  url: string,
  token?: string,
): PreparedRequest {
  const headers: Record<string, string> = { accept: 'application/json', ...c.raw?.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (c.encoding === 'json') headers['content-type'] = 'application/json';
  // Form-data carries strings; a JSON body keeps each value's type (a dry run shows what goes out).
  const body = c.body
    ? Object.fromEntries(
        Object.entries(c.body)
          .filter(([, v]) => v !== undefined && (v !== null || (c.raw && c.encoding === 'json')))
          .map(([k, v]) => [k, c.encoding === 'json' ? v : String(v)]),
      )
    : undefined;
  return { method: c.method, url, headers, encoding: c.encoding, body };
}

/**
 * Form fields as multipart bytes. Encoded once (the platform's Request does the encoding), so that a
 * retry of token generate re-sends the same body; a FormData stream is spent after one try.
 */
export async function multipart(
  fields: Record<string, unknown>,
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, String(v));
  const encoded = new Request('http://mpay.invalid/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type') ?? 'multipart/form-data',
  };
}
