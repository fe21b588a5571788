// --trace FILE: every request and response of a run as HAR 1.2, the format browser devtools and proxy
// tools open, with got's timings. Redacted as --debug is: the Authorization header, merchant key, API key,
// tokens, the one-time code and the gateways' api_key/api_user never reach the file. The file is rewritten
// (atomically, 0600) after each exchange, so a crash leaves a valid trace of what came before. A FILE that
// holds a trace mpay wrote is added to (three commands with one --trace leave all their calls in it); any
// other file there (a browser's HAR, a document) is refused before anything is sent.
import { lstatSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../common/atomic-write.js';
import { UsageError } from '../common/errors.js';
import { HTTPError, type Options, type RequestError, type Response } from 'got';
import type { Secrets } from './redact.js';
import { checkOutputFolder, clearForOutput, whyFailed, type Outputs } from '../common/out-file.js';

interface Pair {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: Pair[];
    headers: Pair[];
    queryString: Pair[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: Pair[];
    headers: Pair[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: {
    blocked: number;
    dns: number;
    connect: number;
    ssl: number;
    send: number;
    wait: number;
    receive: number;
  };
  _error?: string;
}

const pairs = (headers: Record<string, unknown>, secrets: Secrets): Pair[] =>
  Object.entries(secrets.headers(headers)).flatMap(([name, v]) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((value) => ({ name, value: String(value) })),
  );

/** What got knows of one exchange: the request as sent, and the response or the error. */
export interface Exchange {
  started: Date;
  method: string;
  url: string;
  requestHeaders: Record<string, unknown>;
  /** the body as --debug shows it: already redacted */
  requestBody?: { mimeType: string; text: string };
  status?: number;
  statusText?: string;
  responseHeaders?: Record<string, unknown>;
  responseBody?: string;
  /** got's phases, in ms */
  phases?: {
    wait?: number;
    dns?: number;
    tcp?: number;
    tls?: number;
    request?: number;
    firstByte?: number;
    download?: number;
    total?: number;
  };
  error?: string;
}

export function harEntry(x: Exchange, secrets: Secrets): HarEntry {
  const p = x.phases ?? {};
  const ms = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : -1);
  const body = x.responseBody === undefined ? undefined : secrets.text(x.responseBody);
  const url = new URL(x.url);
  return {
    startedDateTime: x.started.toISOString(),
    time: Math.max(0, ms(p.total)),
    request: {
      method: x.method,
      // the URL, its query and the body scrubbed by value as well as by name: a captured token a later
      // step sends (`?x=${x}`, `note: ${x}`) is the run's secret under any name (issue 46)
      url: secrets.text(x.url),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(x.requestHeaders, secrets),
      queryString: secrets.value(
        [...url.searchParams].map(([name, value]) => ({ name, value })),
        'queryString',
      ) as Pair[],
      ...(x.requestBody ? { postData: { ...x.requestBody, text: secrets.text(x.requestBody.text) } } : {}),
      headersSize: -1,
      bodySize: x.requestBody ? Buffer.byteLength(x.requestBody.text) : 0,
    },
    response: {
      status: x.status ?? 0,
      statusText: x.statusText ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(x.responseHeaders ?? {}, secrets),
      content: {
        size: body === undefined ? 0 : Buffer.byteLength(body),
        mimeType: String(x.responseHeaders?.['content-type'] ?? 'x-unknown'),
        ...(body === undefined ? {} : { text: body }),
      },
      redirectURL: String(x.responseHeaders?.location ?? ''),
      headersSize: -1,
      bodySize: body === undefined ? -1 : Buffer.byteLength(body),
    },
    cache: {},
    timings: {
      blocked: ms(p.wait),
      dns: ms(p.dns),
      connect: ms(p.tcp),
      ssl: ms(p.tls),
      send: Math.max(0, ms(p.request)),
      wait: Math.max(0, ms(p.firstByte)),
      receive: Math.max(0, ms(p.download)),
    },
    ...(x.error ? { _error: x.error } : {}),
  };
}

/**
 * The entries of a trace mpay wrote at `file` (none when there is no file, or an empty one), read before
 * anything is sent; anything else there is refused, so that a file of the user's is never replaced.
 */
export function tracedEntries(file: string, creator: string): HarEntry[] {
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st || !st.isFile() || st.size === 0) return [];
  const refuse = (why: string) =>
    new UsageError(`Nothing was sent: ${file} is ${why}, which --trace would replace`, {
      hint: 'Give --trace a new file name (or one mpay wrote with --trace, to add to it), or move that file away',
    });
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw refuse('not a trace (not JSON)');
  }
  const log = (doc as { log?: { creator?: { name?: unknown }; entries?: unknown } } | null)?.log;
  if (log?.creator?.name !== creator || !Array.isArray(log.entries))
    throw refuse('not a trace mpay wrote (its creator is not mpay)');
  return log.entries as HarEntry[];
}

export class HarRecorder {
  private readonly entries: HarEntry[];
  /** the exchanges this run recorded (or failed to) */
  private recorded = 0;
  /** why the trace could not be written, once a write failed: nothing more is written */
  failed?: string;

  constructor(
    readonly file: string,
    private readonly creator: { name: string; version: string },
    /** the run's secrets */
    private readonly secrets: Secrets,
    /** the run's outputs, told of a write that fails (exit 15): the request it records has left */
    private readonly outputs?: Outputs,
  ) {
    // Refused before any request: a file that is not a trace of mpay's; a link where the trace goes (each
    // write then replaces the file whole).
    this.entries = tracedEntries(file, creator.name);
    // a trace to add to stays until the first write replaces it
    if (this.entries.length) checkOutputFolder(file, 'the trace');
    else clearForOutput(file, 'the trace');
  }

  /**
   * Adds an exchange and writes the trace whole. A write that fails (a full disk, the folder gone) never
   * fails the request, which has left: the run goes on, the file keeps the last trace written, and the run's
   * Outputs hear of it once (exit 15); no entry is kept after that.
   */
  record(x: Exchange): void {
    this.recorded++;
    if (this.failed) return;
    this.entries.push(harEntry(x, this.secrets));
    const har = { log: { version: '1.2', creator: this.creator, pages: [], entries: this.entries } };
    // whole or not at all (common/atomic-write.ts): a reader never sees half a trace
    try {
      writeFileAtomic(this.file, `${JSON.stringify(har, null, 2)}\n`);
    } catch (err) {
      this.failed = whyFailed(err);
      this.entries.length = 0;
      const at = this.recorded;
      this.outputs?.failed({
        what: 'the trace',
        path: this.file,
        why: this.failed,
        after: () =>
          `after ${this.recorded} request${this.recorded === 1 ? '' : 's'} (it holds the ${at - 1} before the write failed)`,
      });
    }
  }
}

/** got hooks that hand each request's exchange to `trace`: after its response, or at its error. */
export function traceHooks(trace: (x: Exchange) => void) {
  const requestOf = (o: Options) => {
    const shown = (o.context as { shownBody?: string }).shownBody;
    const type = String((o.headers as Record<string, unknown>)['content-type'] ?? '');
    return {
      method: String(o.method),
      url: String(o.url),
      requestHeaders: o.headers as Record<string, unknown>,
      requestBody: shown ? { mimeType: type.split(';')[0] || 'application/json', text: shown } : undefined,
    };
  };
  // An HTTP error status was recorded as a response already (afterResponse).
  const failed = (err: RequestError) => {
    if (err instanceof HTTPError) return;
    const t = err.timings;
    trace({
      started: new Date(t?.start ?? Date.now()),
      ...requestOf(err.options),
      error: `${err.code ?? ''} ${err.message}`.trim(),
      phases: t?.phases,
    });
  };
  return {
    afterResponse: [
      (res: Response) => {
        trace({
          started: new Date(res.timings.start),
          ...requestOf(res.request.options),
          status: res.statusCode,
          statusText: res.statusMessage ?? '',
          responseHeaders: res.headers,
          responseBody: typeof res.body === 'string' ? res.body : undefined,
          phases: res.timings.phases,
        });
        return res;
      },
    ],
    // A failure without a response: each attempt that is retried, then the last one.
    beforeRetry: [(err: RequestError) => failed(err)],
    beforeError: [
      (err: RequestError) => {
        failed(err);
        return err;
      },
    ],
  };
}
