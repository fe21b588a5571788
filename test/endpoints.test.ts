// The one description of the API (src/api/endpoints.ts): no other file of src/ writes an endpoint's path,
// and every part that serves, documents, classifies or reads the endpoints follows the table: the sandbox
// serves each entry (and nothing else under /restapi/v1), the OpenAPI document lists each with the table's
// method, bearer and body, the money gate classifies exactly the table's money entries, the client sends
// each method to the table's path, and the HAR reader takes the table's encoding.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiBase, endpointList, endpoints } from '../src/api/endpoints.js';
import { moneyEndpointOf } from '../src/api/money.js';
import { transactionFields } from '../src/api/transaction-fields.js';
import { readHar } from '../src/api/har-read.js';
import * as z from 'zod/mini';
import { openApiDocument } from '../src/sandbox/openapi.js';
import { cliEnv, requestCounts, root, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let sb: Sb;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('the endpoint table', () => {
  it('names a transaction only by a field of api/transaction-fields.ts, the list the journal keeps whole', () => {
    const named = new Set(endpointList.flatMap((e) => e.names));
    expect([...named].sort()).toEqual([...transactionFields].sort());
  });

  it("is the only file of src/ that writes the endpoints' paths (the issue's count: at most 12 pairs)", () => {
    // the measure (grep -rlF of each path over src/**/*.ts, command.ts files aside), read here with
    // fs, since the quick tier starts no shell: one pair for each path and file that writes it
    const paths = [
      'public/currencies',
      'public/countries',
      'token/generate',
      'merchant/currencies',
      'payments/initiate',
      'payments/processed',
      'status/update',
      'wallet/address/update',
      'withdraw/initiate',
      'withdraw/processed',
    ];
    const files = (readdirSync(join(root, 'src'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('/command.ts'))
      .map((f) => ({ name: `src/${f}`, text: readFileSync(join(root, 'src', f), 'utf8') }));
    const pairs = paths.flatMap((p) => files.filter((f) => f.text.includes(p)).map((f) => f.name));
    expect(pairs.length).toBeLessThanOrEqual(12);
    // the table's ten, and execute.ts's import of the withdraw initiate command's folder
    expect([...new Set(pairs)].sort()).toEqual(['src/api/endpoints.ts', 'src/execute.ts']);
  });

  it('the OpenAPI document lists each entry with its method, bearer and request body, and nothing else', () => {
    const doc = openApiDocument() as {
      paths: Record<string, Record<string, { security?: unknown; requestBody?: { content: object } }>>;
    };
    const listed = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops).map(([m, op]) => ({ at: `${m.toUpperCase()} ${p}`, op })),
    );
    expect(listed.map((l) => l.at).sort()).toEqual(
      endpointList.map((e) => `${e.method} ${apiBase}${e.path}`).sort(),
    );
    for (const e of endpointList) {
      const op = doc.paths[`${apiBase}${e.path}`]![e.method.toLowerCase()]!;
      expect(Boolean(op.security), e.id).toBe(e.bearer);
      expect(Boolean(op.requestBody), e.id).toBe(Boolean('request' in e && e.request));
      if (e.encoding === 'multipart')
        expect(Object.keys(op.requestBody!.content)[0], e.id).toBe('multipart/form-data');
    }
  });

  it('the money gate classifies exactly the money entries, each with its step and kind', () => {
    for (const e of endpointList) {
      const m = moneyEndpointOf(`https://h.example${apiBase}${e.path}`);
      expect(m?.step, e.id).toBe(e.money?.step);
      expect(m?.kind, e.id).toBe(e.money?.kind);
    }
    expect(endpointList.filter((e) => e.money)).toHaveLength(6);
  });

  it('the sandbox serves each entry, a bearer one refusing a request without a token', async () => {
    for (const e of endpointList) {
      const res = await fetch(`${sb.url}${apiBase}${e.path}`, {
        method: e.method,
        ...(e.method === 'POST' && { headers: { 'content-type': 'application/json' }, body: '{}' }),
      });
      // an unknown route is the framework's 404 "Route … not found"; every entry is served
      const text = await res.text();
      expect(text, e.id).not.toMatch(/could not be found/i);
      if (e.bearer) expect(res.status, e.id).toBe(401);
      else expect(res.status, e.id).not.toBe(401);
    }
  });

  it("the client sends each of its calls to the table's path (the sandbox's count of each route)", async () => {
    const env = cliEnv(sb, tempDir());
    const before = await requestCounts(sb);
    for (const argv of [['currencies'], ['countries'], ['balances']]) {
      const r = await mpay([...argv, '--json'], { env });
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const after = await requestCounts(sb);
    const grew = (e: (typeof endpointList)[number]) =>
      (after[`${e.method} /${e.path}`] ?? 0) - (before[`${e.method} /${e.path}`] ?? 0);
    for (const id of ['publicCurrencies', 'publicCountries', 'tokenGenerate', 'merchantCurrencies'] as const)
      expect(grew({ ...endpoints[id], id }), id).toBeGreaterThan(0);
  });

  it("the HAR reader takes each entry's encoding from the table, and knows no path outside it", () => {
    const entry = (method: string, path: string, body?: object) => ({
      request: {
        method,
        url: `https://api.example${apiBase}${path}`,
        ...(body && { postData: { mimeType: 'application/json', text: JSON.stringify(body) } }),
      },
      response: { status: 200, content: { text: '{}' } },
    });
    const har = {
      log: {
        entries: [
          ...endpointList.map((e) => entry(e.method, e.path, e.method === 'POST' ? { a: 1 } : undefined)),
          entry('POST', 'payments/refund', { a: 1 }),
        ],
      },
    };
    const read = readHar(JSON.stringify(har));
    expect(read.ignored).toBe(1);
    expect(read.calls.map((c) => [c.endpoint, c.encoding])).toEqual(
      endpointList.map((e) => [e.id, e.encoding]),
    );
  });
});

describe('history show --curl reads the table', () => {
  it("a field added to an endpoint's request appears in the printed curl, history show unedited", async () => {
    // the table's withdraw initiate with one more field, for this test alone: a request field mpay api
    // sends and the journal keeps under its own name
    const entry = endpointList.find((e) => e.id === 'withdrawInitiate') as unknown as {
      request: z.ZodMiniObject;
    };
    const request = entry.request;
    entry.request = z.extend(request, { customer_note: z.optional(z.string()) });
    try {
      const env = cliEnv(sb, tempDir());
      const fields = {
        currency_code: 'GHS',
        country_code: 'GH',
        customer_first_name: 'Ama',
        customer_phone: '+233201234567',
        customer_email: 'ama@example.com',
        customer_transaction_id: 'table-field-1',
        amount: '20',
        customer_note: "a note's text",
      };
      const sent = await mpay(
        [
          'api',
          'POST',
          '/payments/withdraw/initiate',
          '--credentials',
          ...Object.entries(fields).flatMap(([k, v]) => ['-f', `${k}=${v}`]),
        ],
        { env },
      );
      expect(sent.code, sent.stderr).toBe(0);
      const shown = await mpay(['history', 'show', 'table-field-1', '--curl', '--json'], { env });
      expect(shown.code, shown.stderr).toBe(0);
      const initiate = (shown.json().commands as string[]).find((c) => c.includes('/withdraw/initiate'))!;
      expect(initiate).toContain(`"customer_note":"a note'\\''s text"`);
      // and in the table's order: after the fields the schema had
      expect(initiate.indexOf('"amount"')).toBeLessThan(initiate.indexOf('"customer_note"'));
    } finally {
      entry.request = request;
    }
  });
});
