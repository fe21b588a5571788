// `mpay proxy`'s server: a plain node:http listener that forwards every request to the upstream, through
// got with the client's proxy settings (api/proxy.ts: HTTPS_PROXY, NO_PROXY) and Node's CA store
// (NODE_EXTRA_CA_CERTS), and hands each answer of the API to the conformance check before it goes back.
// The answer goes back as it came: status, headers (less the hop-by-hop ones) and body.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import got from 'got';
import { bodyFields } from '../api/har-read.js';
import { proxyAgents } from '../api/proxy.js';
import { isSecretName, type Secrets } from '../api/redact.js';
import { registerAnswerSecrets } from '../api/secret-names.js';
import { moneyEndpointOf } from '../api/money.js';
import { liveConfirmedHeader, upstreamHeader } from '../api/live-headers.js';
import { Conformance, type Departure } from './conformance.js';

export interface DepartureRecord {
  time: string;
  method: string;
  path: string;
  status: number;
  kind: Departure['kind'];
  // the field, its array items folded: /data/*/usd_exchange_rate stands for every item's
  field?: string;
  /** how many departures of this answer the record stands for (one a field of each array item) */
  count: number;
  /** one of them, as found: /data/0/usd_exchange_rate */
  example?: string;
  message: string;
}

// A field's JSON pointer with each array index folded to a star: /data/3/rate becomes /data/*/rate.
export const foldItems = (field: string) => field.replace(/\/\d+(?=\/|$)/g, '/*');

/**
 * The departures of one answer grouped by field, array items folded: one record a field path, with how
 * many it stands for and an example (a list of 200 currencies gives one record, not 200).
 */
export function groupDepartures(
  found: Departure[],
): Omit<DepartureRecord, 'time' | 'method' | 'path' | 'status'>[] {
  const groups = new Map<string, Omit<DepartureRecord, 'time' | 'method' | 'path' | 'status'>>();
  for (const d of found) {
    const field = d.field === undefined ? undefined : foldItems(d.field);
    const key = `${d.kind} ${field ?? ''}`;
    const g = groups.get(key);
    if (g) g.count++;
    else
      groups.set(key, {
        kind: d.kind,
        ...(field !== undefined ? { field, example: d.field } : {}),
        count: 1,
        message: d.message,
      });
  }
  return [...groups.values()];
}

export interface ProxyServerOptions {
  /** the run's environment variables: the proxy settings of the client are read from them */
  environ: NodeJS.ProcessEnv;
  /** the upstream's base URL: the part before /restapi/v1 */
  upstream: URL;
  port: number;
  host: string;
  conformance: Conformance;
  onDeparture: (r: DepartureRecord) => void;
  /** a request that could not be forwarded: a line for the person */
  onError?: (line: string) => void;
  timeoutMs?: number;
  now?: () => Date;
  /** the upstream is live: every answer says so, and a money request mpay did not confirm is refused */
  live?: boolean;
  /** the run's secrets: each the traffic carries is registered, so that no report shows it */
  secrets: Secrets;
}

export interface RunningProxy {
  url: string;
  stats: { requests: number; departures: number };
  close(): Promise<void>;
}

const hopByHop =
  /^(connection|keep-alive|proxy-connection|proxy-authorization|transfer-encoding|upgrade|te|trailer|host|content-length|accept-encoding|content-encoding)$/i;
const maxBody = 8 * 2 ** 20;

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The secrets a request carries (bearer token, keys, code), registered so no report ever shows them. */
function registerRequestSecrets(req: IncomingMessage, body: Buffer, secrets: Secrets): void {
  const auth = req.headers.authorization;
  if (auth) secrets.register(auth.replace(/^\w+\s+/, ''));
  const fields = bodyFields({ mimeType: req.headers['content-type'] ?? '', text: body.toString('utf8') });
  for (const [k, v] of Object.entries(fields ?? {}))
    if (isSecretName(k) && (typeof v === 'string' || typeof v === 'number')) secrets.register(String(v));
}

/** What every request's forwarding shares: the options, the counts, the upstream and its agents. */
interface Forwarding {
  opts: ProxyServerOptions;
  stats: RunningProxy['stats'];
  now: () => Date;
  /** the upstream's base URL without its trailing slash */
  base: string;
  agents: ReturnType<typeof proxyAgents>;
}

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: Buffer;
}

export async function startProxy(opts: ProxyServerOptions): Promise<RunningProxy> {
  const stats = { requests: 0, departures: 0 };
  const forwarding: Forwarding = {
    opts,
    stats,
    now: opts.now ?? (() => new Date()),
    base: opts.upstream.href.replace(/\/+$/, ''),
    agents: proxyAgents(opts.upstream.href, opts.environ),
  };
  const server = createServer((req, res) => {
    forward(forwarding, req, res).catch((err: unknown) => {
      opts.onError?.(`${req.method} ${req.url}: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One request: sent on to the upstream, its answer checked, then handed back as it came. */
async function forward(fw: Forwarding, req: IncomingMessage, res: ServerResponse): Promise<void> {
  fw.stats.requests++;
  const method = (req.method ?? 'GET').toUpperCase();
  const path = req.url ?? '/';
  const body = await readBody(req);
  if (!body) {
    res.writeHead(413, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, message: 'mpay proxy: request body over 8 MB' }));
    return;
  }
  registerRequestSecrets(req, body, fw.opts.secrets);
  const live = fw.opts.live ? { [upstreamHeader]: 'live' } : {};
  const confirmed = String(req.headers[liveConfirmedHeader] ?? '') === 'yes';
  if (fw.opts.live && moneyEndpointOf(`${fw.base}${path}`) && !confirmed) {
    res.writeHead(428, { 'content-type': 'application/json', ...live });
    res.end(
      JSON.stringify({
        success: false,
        message: `mpay proxy: ${fw.base} is a live server; a money request goes on only when mpay confirmed it (nothing was forwarded)`,
      }),
    );
    return;
  }
  let answer: Answer;
  try {
    answer = await got(`${fw.base}${path}`, {
      method: method as 'GET',
      headers: endToEnd(req.headers, liveConfirmedHeader),
      body: body.length && method !== 'GET' && method !== 'HEAD' ? body : undefined,
      throwHttpErrors: false,
      followRedirect: false,
      retry: { limit: 0 },
      responseType: 'buffer',
      agent: fw.agents,
      timeout: { request: fw.opts.timeoutMs ?? 30_000 },
    });
  } catch (err) {
    fw.opts.onError?.(`${method} ${path}: the upstream did not answer (${(err as Error).message})`);
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: false, message: 'mpay proxy: the upstream did not answer' }));
    return;
  }
  // The answer is checked before it goes back, so that its departures are reported by the time the
  // client has it.
  if (Conformance.isApiPath(path)) checkAnswer(fw, method, path, answer);
  res.writeHead(answer.statusCode, { ...endToEnd(answer.headers), ...live });
  res.end(answer.body);
}

/** The headers that go on past the proxy: all but the hop-by-hop ones. */
function endToEnd(headers: Record<string, unknown>, drop?: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined && !hopByHop.test(k) && k.toLowerCase() !== drop) out[k] = v as string | string[];
  return out;
}

/** An answer of the API checked against the document, each departure counted and reported. */
function checkAnswer(fw: Forwarding, method: string, path: string, answer: Answer): void {
  const text = answer.body.toString('utf8');
  // A token (any secret-named value) the upstream hands out is a secret from now on, in this report as
  // everywhere: the one rule every answer mpay reads passes (api/secret-names.ts).
  registerAnswerSecrets(text, (v) => fw.opts.secrets.register(v));
  const ct = answer.headers['content-type'];
  const found = fw.opts.conformance.check(
    method,
    path,
    answer.statusCode,
    typeof ct === 'string' ? ct : undefined,
    text,
  );
  fw.stats.departures += found.length;
  for (const g of groupDepartures(found))
    fw.opts.onDeparture({
      time: fw.now().toISOString(),
      method,
      path: path.split('?')[0]!,
      status: answer.statusCode,
      ...g,
    });
}
