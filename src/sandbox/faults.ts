// Fault injection, so tests (and curious support engineers) can see how mpay behaves when the API or the
// network misbehaves. Asked per request with a header, or for a share of all requests at start-up.

export const faultKinds = [
  '500',
  'html',
  'malformed',
  'empty',
  'shape',
  'slow',
  'drop',
  'drop-after',
  '401',
  'escapes',
] as const;
export type Fault = (typeof faultKinds)[number];

export const faultHeader = 'x-mpay-sandbox-fault';
export const delayHeader = 'x-mpay-sandbox-delay';

export interface FaultOptions {
  /** faults applied to a share of requests when no header asks for one */
  faults?: Fault[];
  /** share of requests, 0..1, that get one of `faults` */
  rate?: number;
  /** when set, start-up faults apply only to requests whose path contains one of these */
  faultPaths?: string[];
  /** how long `slow` waits before answering, in ms */
  slowMs?: number;
  /** the generator of the draws; the server makes one from `faultSeed` (faults drawn again alike) */
  random?: () => number;
  /** the seed of the draws, logged at start so that a run can be replayed with --fault-seed */
  faultSeed?: number;
}

export function isFault(v: string): v is Fault {
  return (faultKinds as readonly string[]).includes(v);
}

/** The fault for one request: the header's if it names one, else a random pick at the configured rate. */
export function pickFault(
  header: string | string[] | undefined,
  opts: FaultOptions,
  path = '',
): Fault | undefined {
  const asked = Array.isArray(header) ? header[0] : header;
  if (asked && isFault(asked)) return asked;
  const pool = opts.faults ?? [];
  if (pool.length === 0 || !opts.rate) return undefined;
  if (opts.faultPaths && !opts.faultPaths.some((p) => path.includes(p))) return undefined;
  // The server always sets a seeded generator; Math.random only for a caller that draws by itself.
  const random = opts.random ?? Math.random;
  if (random() >= opts.rate) return undefined;
  return pool[Math.floor(random() * pool.length)] ?? pool[0];
}

type Canned = { status: number; type: string; body: string };
/** An answer said to be JSON: `body` serialized, or as it is when text (the faults whose JSON is broken). */
const json = (status: number, body: unknown): Canned => ({
  status,
  type: 'application/json',
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** The canned answer of a fault that replaces the real one. */
export function faultReply(fault: Fault, path = ''): Canned | undefined {
  switch (fault) {
    case '500':
      // The public lists fail in their own shape (spec, Errors).
      return path.includes('/public/') && !path.includes('/merchant/')
        ? json(500, { success: false, message: 'Failed to fetch the list', error_code: 500 })
        : json(500, { success: false, message: 'Server Error', errors: [] });
    case 'html':
      return {
        status: 502,
        type: 'text/html',
        body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
      };
    case 'malformed':
      return json(200, '{"success":true,"message":"ok","data":[{"id":1,');
    case 'empty':
      return json(200, '');
    case 'shape':
      return json(200, { ok: 1, result: 'not the documented shape' });
    case '401':
      return json(401, { status: false, message: 'UnAuthenticated User' });
    default:
      return undefined;
  }
}

/** The `escapes` fault: the real answer, with terminal escape sequences in every string it holds. */
export function withEscapes(value: unknown): unknown {
  if (typeof value === 'string') return `\u001b[31m\u001b]0;pwned\u0007${value}\u001b[0m`;
  if (Array.isArray(value)) return value.map(withEscapes);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withEscapes(v)]));
  return value;
}
