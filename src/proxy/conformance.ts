// Where an answer departs from the API's document (the OpenAPI 3.1 document the sandbox publishes,
// sandbox/openapi.ts): a status the document does not list for that path, a body that fails its schema
// (types, required fields, nulls), and fields the document does not name. The schemas are compiled once,
// by ajv, when the proxy starts: each response of each operation twice, as written (its objects take any
// other field, as the API's parsers do) and strict (every object closed), whose only errors kept are the
// fields the document does not name.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { importLazily } from '../lazy-import.js';
import { apiBase } from '../api/endpoints.js';

export type DepartureKind = 'path' | 'status' | 'body' | 'schema' | 'field';

export interface Departure {
  kind: DepartureKind;
  /** the field, as a JSON pointer (/data/0/usd_exchange_rate), when it is about one */
  field?: string;
  message: string;
}

type Schema = Record<string, unknown>;
interface Compiled {
  loose: ValidateFunction;
  strict: ValidateFunction;
}

/** A deep copy with the document's refs pointed at $defs, and no $schema below the root. */
function rewrite(v: unknown, strict: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => rewrite(x, strict));
  if (!v || typeof v !== 'object') return v;
  const out: Schema = {};
  for (const [k, x] of Object.entries(v as Schema)) {
    if (k === '$schema') continue;
    if (k === '$ref' && typeof x === 'string') out[k] = x.replace('#/components/schemas/', '#/$defs/');
    else out[k] = rewrite(x, strict);
  }
  // Strict: an object with named properties takes no other (one that allows any, `{}`, included).
  if (strict && out.properties && typeof out.properties === 'object') {
    const extra = out.additionalProperties;
    if (extra === undefined || (extra && typeof extra === 'object' && !Object.keys(extra).length))
      out.additionalProperties = false;
  }
  return out;
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function at(body: unknown, pointer: string): unknown {
  let v = body;
  for (const part of pointer.split('/').slice(1)) {
    const k = part.replace(/~1/g, '/').replace(/~0/g, '~');
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  }
  return v;
}

/** ajv's errors as departures: one a field, the branches of an anyOf/oneOf folded into one line. */
function schemaDepartures(errors: ErrorObject[], body: unknown): Departure[] {
  const deeper = (p: string) =>
    errors.some((e) => e.instancePath.startsWith(`${p}/`) && e.keyword !== 'additionalProperties');
  const byField = new Map<string, { types: Set<string>; other: Set<string> }>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'additionalProperties') continue;
    // A branch that failed on its type while another branch failed deeper: the deeper one is the news.
    if ((e.keyword === 'type' || e.keyword === 'maxItems') && deeper(e.instancePath)) continue;
    const field =
      e.keyword === 'required'
        ? `${e.instancePath}/${String((e.params as { missingProperty?: string }).missingProperty)}`
        : e.instancePath;
    const entry = byField.get(field) ?? { types: new Set(), other: new Set() };
    if (e.keyword === 'type') {
      const t = (e.params as { type?: string | string[] }).type;
      for (const x of Array.isArray(t) ? t : String(t).split(',')) entry.types.add(x);
    } else if (e.keyword === 'required') entry.other.add('required, and missing');
    else entry.other.add(e.message ?? e.keyword);
    byField.set(field, entry);
  }
  return [...byField].map(([field, e]) => {
    const parts = [...e.other];
    if (e.types.size) parts.unshift(`must be ${[...e.types].join(' or ')}, is ${typeOf(at(body, field))}`);
    return { kind: 'schema', field: field || '/', message: parts.join('; ') };
  });
}

export class Conformance {
  private constructor(
    /** "METHOD /path" → status → its validators */
    private readonly ops: Map<string, Map<string, Compiled | null>>,
  ) {}

  /** Compiles every response schema of the document, once. */
  static async fromDocument(doc: Record<string, unknown>): Promise<Conformance> {
    const mod = await importLazily<{ default: unknown }>('ajv');
    const AjvClass = ((mod.default as { default?: unknown }).default ??
      mod.default) as typeof import('ajv').default;
    const ajv = new AjvClass({ allErrors: true, strict: false, validateFormats: false });
    const components = ((doc.components as Schema | undefined)?.schemas ?? {}) as Schema;
    const defs = { loose: rewrite(components, false), strict: rewrite(components, true) };
    const ops = new Map<string, Map<string, Compiled | null>>();
    for (const [path, byMethod] of Object.entries((doc.paths ?? {}) as Record<string, Schema>)) {
      for (const [method, op] of Object.entries(byMethod)) {
        const statuses = new Map<string, Compiled | null>();
        for (const [status, res] of Object.entries(
          ((op as Schema).responses ?? {}) as Record<string, Schema>,
        )) {
          const schema = ((res.content as Schema | undefined)?.['application/json'] as Schema | undefined)
            ?.schema;
          statuses.set(
            status,
            schema
              ? {
                  loose: ajv.compile({ ...(rewrite(schema, false) as Schema), $defs: defs.loose }),
                  strict: ajv.compile({ ...(rewrite(schema, true) as Schema), $defs: defs.strict }),
                }
              : null,
          );
        }
        ops.set(`${method.toUpperCase()} ${path}`, statuses);
      }
    }
    return new Conformance(ops);
  }

  /** Whether a request's path is one the document should know: the API's, under /restapi/v1/. */
  static isApiPath(path: string): boolean {
    return path.split('?')[0]!.startsWith(apiBase);
  }

  /** The departures of one answer from the document; empty when it conforms. */
  check(
    method: string,
    path: string,
    status: number,
    contentType: string | undefined,
    text: string,
  ): Departure[] {
    const p = path.split('?')[0]!.replace(/\/+$/, '');
    const op = this.ops.get(`${method.toUpperCase()} ${p}`);
    if (!op)
      return [{ kind: 'path', message: `${method.toUpperCase()} ${p} is not an operation of the document` }];
    const compiled = op.get(String(status)) ?? op.get(`${String(status)[0]}XX`) ?? op.get('default');
    if (compiled === undefined)
      return [
        {
          kind: 'status',
          message: `HTTP ${status} is not a status the document lists for ${method.toUpperCase()} ${p} (it lists ${[...op.keys()].join(', ')})`,
        },
      ];
    if (compiled === null) return [];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [
        {
          kind: 'body',
          message: `the body is not JSON (${contentType ?? 'no content type'}, ${Buffer.byteLength(text)} bytes)`,
        },
      ];
    }
    const out: Departure[] = [];
    if (!compiled.loose(body)) out.push(...schemaDepartures(compiled.loose.errors ?? [], body));
    if (!compiled.strict(body)) {
      const named = new Set<string>();
      for (const e of compiled.strict.errors ?? []) {
        if (e.keyword !== 'additionalProperties') continue;
        const field = `${e.instancePath}/${String((e.params as { additionalProperty?: string }).additionalProperty)}`;
        if (named.has(field)) continue;
        named.add(field);
        out.push({ kind: 'field', field, message: 'a field the document does not name' });
      }
    }
    return out;
  }
}
