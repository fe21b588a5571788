// What `mpay replay` compares of a recorded answer and the new one (flows/replay/replay-compare.ts): the status,
// the success flag (`success`, or a boolean `status`: the spec's shape B), the message with what always
// differs between two runs stood in for, the transaction's status of a success, and the shape (each field
// with its JSON type; an array's items under `[]`, the first item's type kept). A trace of the public
// currencies, recorded on one sandbox, is replayed on another with its recorded answer edited: each edit
// must show as exactly the difference it makes, in --json and in the text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayDiffersExitCode } from '../src/common/errors.js';
import { normalizeMessage } from '../src/flows/replay/replay-compare.js';
import { cliEnv, file, harOf, sandbox, tempDir } from './helpers.js';
import { forwarder } from './forwarder.js';
import { mpay } from './in-process.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;
let a: Sb; // where the trace is recorded
let b: Sb; // where it is replayed: the same data
let recorded: { response: { status: number; content: { text: string } } };
beforeAll(async () => {
  [a, b] = await Promise.all([sandbox(), sandbox()]);
  const t = join(tempDir(), 'currencies.har');
  const r = await mpay(['currencies', '--trace', t], { env: cliEnv(a, tempDir()) });
  expect(r.code, r.stderr).toBe(0);
  [recorded] = JSON.parse(readFileSync(t, 'utf8')).log.entries;
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

type Body = { success: boolean; message: string; data: Record<string, unknown>[] };
/** The recorded call with its answer made by `f` from the recorded body (a string is the text itself). */
const answered = (f: (body: Body) => unknown, status = 200) => {
  const e = structuredClone(recorded);
  e.response.status = status;
  const out = f(JSON.parse(e.response.content.text) as Body);
  e.response.content.text = typeof out === 'string' ? out : JSON.stringify(out);
  return e;
};
const ok = 'Currencies fetched successfully.';
/** What the sandbox's answer has that a body without `data` lacks: each as absent → its type. */
const dataFields = {
  data: 'array',
  'data[]': 'object',
  'data[].code': 'string',
  'data[].country': 'object',
  'data[].country.code': 'string',
  'data[].country.dial_code': 'string',
  'data[].country.flag': 'string',
  'data[].country.id': 'number',
  'data[].country.name': 'string',
  'data[].id': 'number',
  'data[].maximum_deposite': 'number',
  'data[].minimum_deposite': 'number',
  'data[].name': 'string',
  'data[].symbol': 'string',
  'data[].usd_exchange_rate': 'number',
};
const field = (path: string, rec: string, rep: string) => ({
  what: 'field',
  path,
  recorded: rec,
  replayed: rep,
});
const byPath = (x: { path: string }, y: { path: string }) => (x.path < y.path ? -1 : 1);
const absentData = Object.entries(dataFields).map(([p, t]) => field(p, 'absent', t));

interface Call {
  same: boolean;
  recorded: { status: number; flag: boolean | null; message: string | null; says?: string[] };
  differences: { what: string; path?: string; recorded: unknown; replayed: unknown }[];
}

describe('each edit of the recorded answer is the difference it makes', () => {
  let calls: Call[];
  let text: string;
  beforeAll(async () => {
    const har = file(
      'edited.har',
      harOf([
        // 1. as recorded
        answered((x) => x),
        // 2. shape B: the flag in a boolean `status`; the same flag, two fields moved
        answered(({ success, ...rest }) => ({ status: success, ...rest })),
        // 3. a gateway's HTML page
        answered(() => '<html>Bad gateway</html>', 502),
        // 4. an empty answer
        answered(() => ''),
        // 5. the first item's id a string, the others' numbers: the first type is the field's
        answered((x) => ({ ...x, data: [{ ...x.data[0], id: String(x.data[0]!.id) }, ...x.data.slice(1)] })),
        // 6. refused, with the API's words on each field (a list with a number in it, and a string)
        answered(
          () => ({
            status: false,
            message: 'Validation failed.',
            errors: { currency: ['Unknown', 7, 'currency.'], code: 'Too long.' },
          }),
          422,
        ),
        // 7. a refusal carrying a transaction's status: not a success, so no transaction status
        answered(() => ({ success: false, message: ok, data: { status: 'pending' } }), 409),
        // 8. a success carrying one: compared
        answered(() => ({ success: true, message: ok, data: { status: 'pending' } })),
        // 9. a JSON array
        answered(() => []),
        // 10, 11. refused with `errors` that is no object: no words on any field
        answered(() => ({ status: false, message: 'Validation failed.', errors: 'Invalid request.' }), 422),
        answered(() => ({ status: false, message: 'Validation failed.', errors: null }), 422),
        // 12. a success whose data's status is no text: no transaction status
        answered(() => ({ success: true, message: ok, data: { status: 7 } })),
        // 13. an answer recorded without its text
        { ...recorded, response: { ...recorded.response, content: {} } },
      ]),
    );
    const env = cliEnv(b, tempDir());
    const r = await mpay(['replay', har, '--json'], { env });
    expect(r.code, r.stderr).toBe(replayDiffersExitCode);
    calls = r.json() as Call[];
    text = (await mpay(['replay', har], { env })).stdout;
  });

  it('an answer as recorded: the same', () => {
    expect(calls[0]).toMatchObject({ same: true, differences: [] });
    // what is compared of it, and nothing else: no words of a refusal, no answer, no transaction status
    expect(calls[0]!.recorded).toEqual({ status: 200, flag: true, message: ok, shape: expect.any(Object) });
    expect(calls).toHaveLength(13);
  });

  it("shape B's boolean `status` is its flag: only the two fields differ", () => {
    expect(calls[1]!.recorded.flag).toBe(true);
    expect(calls[1]!.differences).toEqual([
      field('status', 'boolean', 'absent'),
      field('success', 'absent', 'boolean'),
    ]);
  });

  it('a body that is not JSON, or none: its body differs, no field is listed', () => {
    const notJson = { what: 'body', recorded: 'not JSON', replayed: 'JSON' };
    expect(calls[2]!.differences).toEqual([
      { what: 'status', recorded: 502, replayed: 200 },
      { what: 'flag', recorded: null, replayed: true },
      { what: 'message', recorded: null, replayed: ok },
      notJson,
    ]);
    for (const none of [calls[3]!, calls[12]!])
      expect(none.differences).toEqual([
        { what: 'flag', recorded: null, replayed: true },
        { what: 'message', recorded: null, replayed: ok },
        notJson,
      ]);
    expect(text).toMatch(/3\. GET \/public\/currencies {2}DIFFERS\n {3}recorded: 502 "-" not JSON\n/);
    expect(text).toContain('body: not JSON → JSON');
  });

  it("an array's items: the first item's type is the field's", () => {
    expect(calls[4]!.differences).toEqual([field('data[].id', 'string', 'number')]);
    expect(text).toContain('data[].id: string → number');
  });

  it("a refusal: the API's words on each field, its strings only", () => {
    expect(calls[5]!.recorded).toMatchObject({
      status: 422,
      flag: false,
      message: 'Validation failed.',
      says: ['currency: Unknown currency.', 'code: Too long.'],
    });
    expect(calls[5]!.differences).toEqual([
      { what: 'status', recorded: 422, replayed: 200 },
      { what: 'flag', recorded: false, replayed: true },
      { what: 'message', recorded: 'Validation failed.', replayed: ok },
      ...[
        ...absentData,
        field('errors', 'object', 'absent'),
        field('errors.code', 'string', 'absent'),
        field('errors.currency', 'array', 'absent'),
        field('errors.currency[]', 'string', 'absent'),
        field('status', 'boolean', 'absent'),
        field('success', 'absent', 'boolean'),
      ].sort(byPath),
    ]);
  });

  it('a refusal whose `errors` is a string or null: no words on any field', () => {
    for (const c of calls.slice(9, 11)) {
      expect(c.recorded).toMatchObject({ status: 422, flag: false, message: 'Validation failed.' });
      expect(c.recorded).not.toHaveProperty('says');
    }
    expect(text).not.toContain('0: I');
  });

  it("a transaction's status is compared in a success only", () => {
    const objectData = [
      field('data', 'object', 'array'),
      ...absentData.filter((d) => d.path !== 'data'),
      field('data.status', 'string', 'absent'),
    ].sort(byPath);
    expect(calls[6]!.differences).toEqual([
      { what: 'status', recorded: 409, replayed: 200 },
      { what: 'flag', recorded: false, replayed: true },
      ...objectData,
    ]);
    expect(calls[7]!.differences).toEqual([
      { what: 'transaction status', recorded: 'pending', replayed: null },
      ...objectData,
    ]);
    // a status that is no text is no transaction's status
    expect(calls[11]!.differences).toEqual(
      objectData.map((d) => (d.path === 'data.status' ? { ...d, recorded: 'number' } : d)),
    );
  });

  it('a JSON array: no flag, no message, none of the fields', () => {
    expect(calls[8]!.recorded).toMatchObject({ flag: null, message: null });
    expect(calls[8]!.differences).toEqual([
      { what: 'flag', recorded: null, replayed: true },
      { what: 'message', recorded: null, replayed: ok },
      ...[field('message', 'absent', 'string'), ...absentData, field('success', 'absent', 'boolean')].sort(
        byPath,
      ),
    ]);
  });
});

it('a replayed answer that is not JSON: its body differs, no field is listed', async () => {
  // the server behind a forwarder that answers its gateway's page
  const page = await forwarder(b.url, { answer: () => '<html>Bad gateway</html>' });
  try {
    const r = await mpay(['replay', file('as-recorded.har', harOf([recorded])), '--json'], {
      env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: page.url }),
    });
    expect(r.code, r.stderr).toBe(replayDiffersExitCode);
    const [call] = r.json() as Call[];
    expect(call!.differences).toEqual([
      { what: 'flag', recorded: true, replayed: null },
      { what: 'message', recorded: ok, replayed: null },
      { what: 'body', recorded: 'JSON', replayed: 'not JSON' },
    ]);
  } finally {
    await page.close();
  }
});

// The sandbox's messages hold no value of a run, so these are the messages of another API's answers: each
// pair differs only by what always differs between two runs (a time, an id, a token, a reference, a value
// of the run), and compares alike; a pair that differs by a word does not.
describe('what always differs between two runs is no difference of messages', () => {
  const alike: [string, string, string[]?][] = [
    ['Expired at 2026-11-22T10:00:00.123Z.', 'Expired at 2025-01-02 03:04.'],
    ['Expired on 2026-11-22, retry.', 'Expired on 2025-01-02, retry.'],
    ['Expired at 2026-11-22 10:00:07.', 'Expired at 2025-01-02T03:04:05Z.'],
    [
      'Request 0f0e0d0c-0b0a-4909-8807-060504030201 failed',
      'Request 11111111-AAAA-4333-8444-555555555555 failed',
    ],
    ['Token a1b2c3d4e5f60718 refused', 'Token FFFFEEEEDDDDCCCC99 refused'],
    ['Transaction TXN12345678 is pending', 'Transaction AB9Z8Y7X6W5V4 is pending'],
    ['Reference mpay-d-20261122-ab12 is used', 'Reference mpay-w-other_9-x is used'],
    ['Reference mpay-dep-1 is used', 'Reference mpay-wd-2 is used'],
    // the run's own values: a new hash token, a new reference; four characters are enough
    ['Known as abcd', 'Known as wxyz', ['abcd', 'wxyz']],
    // the longest first: a value that holds a shorter one is stood in for whole
    ['was tok-old-one', 'was tok-new-two', ['tok-old', 'tok-new', 'tok-old-one', 'tok-new-two']],
    [
      'Known as tok-new, was tok-old-one',
      'Known as tok-old, was tok-new-one',
      ['tok-old', 'tok-new', 'tok-old-one', 'tok-new-one'],
    ],
  ];
  it.each(alike)('%j and %j compare alike', (x, y, volatile) => {
    expect(normalizeMessage(x, volatile ?? [])).toBe(normalizeMessage(y, volatile ?? []));
  });

  const differ: [string, string, string[]?][] = [
    ['Expired at 2026-11-22.', 'Expired at 2026-11-22!'],
    ['Token a1b2c3d4e5f6071 refused', 'Token a1b2c3d4e5f6072 refused'], // 15 digits: not a token
    ['Transaction TXN12345 is pending', 'Transaction TXN54321 is pending'], // too short for an id
    ['Request abc failed', 'Request abd failed', ['abc', 'abd']], // under 4 characters: not stood in for
    ['Order 12345 accepted', 'Order 12346 accepted'],
    ['Code A12345678 is bad', 'Code B87654321 is bad'], // one capital: not an id
    // what is stood in for is still a difference from nothing at all
    ['Expired at 2026-11-22.', 'Expired at .'],
    ['Request 0f0e0d0c-0b0a-4909-8807-060504030201 failed', 'Request  failed'],
    ['Token a1b2c3d4e5f60718 refused', 'Token  refused'],
    ['Transaction TXN12345678 is pending', 'Transaction  is pending'],
    ['Reference mpay-d-20261122-ab12 is used', 'Reference  is used'],
    ['Known as tok-new', 'Known as ', ['tok-new']],
  ];
  it.each(differ)('%j and %j differ', (x, y, volatile) => {
    expect(normalizeMessage(x, volatile ?? [])).not.toBe(normalizeMessage(y, volatile ?? []));
  });

  it('no message is none', () => {
    expect(normalizeMessage(null, ['abcd'])).toBeNull();
    expect(normalizeMessage('', [])).toBe('');
  });
});
