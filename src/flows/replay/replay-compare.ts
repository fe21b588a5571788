// What `mpay replay` compares of two answers to the same call: the HTTP status, the success/status flag,
// which of its endpoint's answers came back (withdraw processed: the code sent or the withdrawal processed,
// as the endpoint table tells them apart), the transaction's status where the answer carries one, the
// message, and the shape (every field present, with its JSON type). Other values are never compared:
// tokens, ids, references, amounts in another currency and times always differ between two runs. In messages, the
// values that always differ (hash tokens, references, ids, long numbers, times) are stood in for first.

export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export interface AnswerSummary {
  /** 0 when no answer came (the connection failed) */
  status: number;
  /** the body's `success`, else its `status` when that is a boolean (the spec's shape B) */
  flag: boolean | null;
  message: string | null;
  /** every field, by its path (data.gateway_configuration[].gateway.id), with its JSON type; null: not JSON */
  shape: Record<string, JsonType> | null;
  /** why there is no answer: the connection's error */
  error?: string;
  /** the API's own words on each field it refused (`errors` of a 422), as "field: message" */
  says?: string[];
  /** which of its endpoint's answers a success was (the endpoint table's `answers`: code sent, processed) */
  answer?: string;
  /** the transaction's status, where a success carries one (`data.status`) */
  transaction_status?: string;
}

export interface Difference {
  what: 'status' | 'flag' | 'answer' | 'transaction status' | 'message' | 'field' | 'body';
  /** the field, for `field` */
  path?: string;
  recorded: unknown;
  replayed: unknown;
}

function typeOf(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v as JsonType;
}

/** Every field of a JSON value by path; an array's items are merged under `[]`. */
export function shapeOf(value: unknown): Record<string, JsonType> {
  const out: Record<string, JsonType> = {};
  const walk = (v: unknown, path: string) => {
    const t = typeOf(v);
    if (path) {
      // An array whose items differ in type records the first; the others show as their own fields.
      out[path] ??= t;
    }
    if (t === 'object')
      for (const [k, c] of Object.entries(v as Record<string, unknown>)) walk(c, path ? `${path}.${k}` : k);
    else if (t === 'array') for (const c of v as unknown[]) walk(c, `${path}[]`);
  };
  walk(value, '');
  return out;
}

/**
 * An answer's text as what is compared of it; `answers`, the endpoint table's, tells which of its answers
 * a success was.
 */
export function summarize(
  status: number,
  text: string | undefined,
  error?: string,
  answers?: (data: unknown) => string,
): AnswerSummary {
  let body: unknown;
  let json = false;
  try {
    // no text is not JSON either: String(undefined) is 'undefined'
    body = JSON.parse(String(text));
    json = true;
  } catch {
    // not JSON: its shape is null
  }
  // the fields read of the body (success, status, errors, data, message): none on an array, a string, a
  // number, null, or a body that is not JSON
  const o = Object(body) as Record<string, unknown>;
  const flag = typeof o.success === 'boolean' ? o.success : typeof o.status === 'boolean' ? o.status : null;
  const errors = o.errors && typeof o.errors === 'object' ? (o.errors as Record<string, unknown>) : {};
  const says = Object.entries(errors).map(
    ([field, m]) =>
      `${field}: ${[m]
        .flat()
        .filter((x) => typeof x === 'string')
        .join(' ')}`,
  );
  const success = status >= 200 && status < 300 && 'data' in o;
  // its `status` is read: none on an array, a string or a number either
  const data = Object(o.data) as Record<string, unknown>;
  return {
    status,
    flag,
    message: typeof o.message === 'string' ? o.message : null,
    shape: json ? shapeOf(body) : null,
    ...(error ? { error } : {}),
    ...(says.length ? { says } : {}),
    ...(success && answers ? { answer: answers(o.data) } : {}),
    ...(success && typeof data.status === 'string' ? { transaction_status: data.status } : {}),
  };
}

/** A message with what always differs between two runs stood in for: the given values, then patterns. */
export function normalizeMessage(message: string | null, volatile: string[]): string | null {
  if (message === null) return null;
  let m = message;
  for (const v of [...volatile].filter((x) => x.length >= 4).sort((a, b) => b.length - a.length))
    m = m.split(v).join('<value>');
  return m
    .replace(/\b\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?Z?)?/g, '<time>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\b[0-9a-f]{16,}\b/gi, '<token>')
    .replace(/\b[A-Z]{2,}[A-Z0-9]{8,}\b/g, '<id>')
    .replace(/\bmpay-[a-z]+-[\w-]+/g, '<reference>');
}

/** What differs between the recorded answer and the new one; empty when they answered alike. */
export function differences(
  recorded: AnswerSummary,
  replayed: AnswerSummary,
  volatile: string[],
): Difference[] {
  const out: Difference[] = [];
  if (recorded.status !== replayed.status)
    out.push({ what: 'status', recorded: recorded.status, replayed: replayed.status });
  if (recorded.flag !== replayed.flag)
    out.push({ what: 'flag', recorded: recorded.flag, replayed: replayed.flag });
  if (recorded.answer !== replayed.answer)
    out.push({ what: 'answer', recorded: recorded.answer ?? null, replayed: replayed.answer ?? null });
  if (recorded.transaction_status !== replayed.transaction_status)
    out.push({
      what: 'transaction status',
      recorded: recorded.transaction_status ?? null,
      replayed: replayed.transaction_status ?? null,
    });
  const [a, b] = [normalizeMessage(recorded.message, volatile), normalizeMessage(replayed.message, volatile)];
  if (a !== b) out.push({ what: 'message', recorded: recorded.message, replayed: replayed.message });
  if ((recorded.shape === null) !== (replayed.shape === null)) {
    out.push({
      what: 'body',
      recorded: recorded.shape === null ? 'not JSON' : 'JSON',
      replayed: replayed.shape === null ? 'not JSON' : 'JSON',
    });
    return out;
  }
  const ra = recorded.shape ?? {};
  const rb = replayed.shape ?? {};
  for (const path of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort())
    if (ra[path] !== rb[path])
      out.push({ what: 'field', path, recorded: ra[path] ?? 'absent', replayed: rb[path] ?? 'absent' });
  return out;
}
