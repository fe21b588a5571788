// An answer about another transaction is never taken as this one's: a forwarder of the test's own in
// front of a real sandbox rewrites one answer's customer_transaction_id (or amount), as a server that
// mixed two transactions up would send it. The flow stops before the next money step, exit 7 (server),
// the journal says what differed; a batch's row and a scenario's step fail as server (exit 10, 14).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitCodes, scenarioFailedExitCode, ServerError } from '../src/common/errors.js';
import { anotherTransaction, differences } from '../src/flows/gate/answer-check.js';
import {
  cliEnv,
  customerArgs,
  file,
  ndjson,
  requestCounts,
  rewritingProxy,
  sandbox,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
let fw: Awaited<ReturnType<typeof rewritingProxy>>;
/** what the forwarder changes in a status update's answer's data, when set */
let change: Record<string, unknown> | undefined;
beforeAll(async () => {
  sb = await sandbox();
  fw = await rewritingProxy(sb.url, (route, body) => {
    if (!change || !route.endsWith('/payments/status/update')) return body;
    const doc = JSON.parse(body) as { data?: Record<string, unknown> };
    if (doc.data) Object.assign(doc.data, change);
    return JSON.stringify(doc);
  });
});
afterAll(async () => {
  await fw.close();
  await sb.close();
});

const processed = async () => (await requestCounts(sb))['POST /payments/processed'] ?? 0;

/** The journal's steps of a transaction, as `history show` gives them. */
async function stepsOf(env: Record<string, string>, key: string) {
  const h = await mpay(['history', 'show', key, '--json'], { env });
  expect(h.code, h.stderr).toBe(0);
  const doc = h.json();
  expect(JSON.stringify(doc)).not.toMatch(/damaged/);
  return doc.steps as { step: string; outcome: string; detail?: string }[];
}

it('a status update answer naming another customer_transaction_id stops the flow before processed: exit 7', async () => {
  const env = cliEnv({ url: fw.url }, tempDir());
  change = { customer_transaction_id: 'someone-elses-payment' };
  const before = await processed();
  const r = await mpay(['deposit', ...customerArgs(), '--reference', 'mine-1', '--json'], { env });
  expect(r.code, r.stderr).toBe(exitCodes.server);
  const err = r.json().error;
  expect(err.kind).toBe('server');
  expect(err.message).toMatch(
    /about another transaction: customer_transaction_id "?someone-elses-payment"? \(this transaction's is "?mine-1"?\)/,
  );
  expect(await processed()).toBe(before);
  const status = (await stepsOf(env, 'mine-1')).filter((s) => s.step === 'status');
  expect(status.at(-1)).toMatchObject({ outcome: 'failed' });
  expect(status.at(-1)!.detail).toMatch(/another transaction/);
});

it('--resume of a transaction whose status update answers for another: stops before processed, exit 7', async () => {
  const dir = tempDir();
  change = undefined;
  const direct = cliEnv({ url: fw.url }, dir);
  const i = await mpay(
    ['deposit', 'initiate', ...customerArgs({ gateway: '' }), '--reference', 'lost-1', '--json'],
    {
      env: direct,
    },
  );
  expect(i.code, i.stderr).toBe(0);
  change = { customer_transaction_id: 'other-customer-4999', initiate_amount: 4999 };
  const before = await processed();
  const r = await mpay(['deposit', '--resume', 'lost-1', '--gateway', '1', '--json'], {
    env: cliEnv({ url: fw.url }, dir),
  });
  expect(r.code, r.stderr + r.stdout).toBe(exitCodes.server);
  expect(r.json().error.message).toMatch(/customer_transaction_id .*other-customer-4999.*; amount .*4999/);
  expect(await processed()).toBe(before);
});

it('an amount other than the one sent is a mismatch too', async () => {
  const env = cliEnv({ url: fw.url }, tempDir());
  change = { initiate_amount: 4999 };
  const before = await processed();
  const r = await mpay(['deposit', ...customerArgs({ amount: '10' }), '--reference', 'mine-amt', '--json'], {
    env,
  });
  expect(r.code, r.stderr).toBe(exitCodes.server);
  expect(r.json().error.message).toMatch(/amount "?4999"? \(this transaction's is "?10"?\)/);
  expect(await processed()).toBe(before);
});

it("a batch's rows fail as server (exit 10); a scenario's step fails as server (exit 14)", async () => {
  const env = cliEnv({ url: fw.url }, tempDir());
  change = { customer_transaction_id: 'someone-elses-payment' };
  const before = await processed();
  const csv = file(
    'rows.csv',
    'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,10,Ama,+233201234567,ama@example.com,1\nGHS,GH,12,Kofi,+233201234568,kofi@example.com,1\n',
  );
  const b = await mpay(['deposit', 'batch', csv, '--json'], { env });
  expect(b.code, b.stderr).toBe(10);
  const rows = ndjson(b.stdout);
  expect(rows.map((x) => x.error?.kind)).toEqual(['server', 'server']);
  const s = file(
    'flow.yaml',
    `name: a deposit
steps:
  - name: deposit
    run: deposit
    flags: { currency: GHS, country: GH, amount: "10", first-name: Ama, phone: "+233201234567", email: ama@example.com, gateway: 1, reference: "\${run.reference}-1" }
`,
  );
  const run = await mpay(['run', s, '--json'], { env });
  expect(run.code, run.stderr).toBe(scenarioFailedExitCode);
  expect(run.json().scenarios[0].steps[0], run.stdout).toMatchObject({
    outcome: 'failed',
    kind: 'server',
    exit: 7,
  });
  expect(await processed()).toBe(before);
});

it('mpay api: a status update of a transaction made elsewhere is no false alarm; one made here is checked', async () => {
  const dir = tempDir();
  change = undefined;
  // made by another machine's journal: this one knows only the hash token
  const other = await mpay(['deposit', 'initiate', ...customerArgs({ gateway: '' }), '--json'], {
    env: cliEnv({ url: fw.url }, tempDir()),
  });
  expect(other.code, other.stderr).toBe(0);
  const env = cliEnv({ url: fw.url }, dir);
  const update = (hash: string) =>
    mpay(
      [
        'api',
        'POST',
        '/payments/status/update',
        '-F',
        `hash_token=${hash}`,
        '-F',
        'status=pending',
        '-F',
        'gateway_id=1',
      ],
      {
        env,
      },
    );
  const ok = await update(other.json().hash_token);
  expect(ok.code, ok.stderr).toBe(0);
  const mine = await mpay(
    ['deposit', 'initiate', ...customerArgs({ gateway: '' }), '--reference', 'api-mine', '--json'],
    {
      env,
    },
  );
  expect(mine.code, mine.stderr).toBe(0);
  change = { customer_transaction_id: 'someone-elses-payment' };
  const bad = await update(mine.json().hash_token);
  expect(bad.code, bad.stderr).toBe(exitCodes.server);
  expect(bad.stderr).toMatch(/about another transaction/);
});

it('mpay api: a status update whose answer holds null where an object may be names no transaction: journaled ok, exit 0', async () => {
  const env = cliEnv({ url: fw.url }, tempDir());
  change = undefined;
  const mine = await mpay(
    ['deposit', 'initiate', ...customerArgs({ gateway: '' }), '--reference', 'api-null', '--json'],
    { env },
  );
  expect(mine.code, mine.stderr).toBe(0);
  change = { currency: null };
  const r = await mpay(
    [
      'api',
      'POST',
      '/payments/status/update',
      '-F',
      `hash_token=${mine.json().hash_token}`,
      '-F',
      'status=pending',
      '-F',
      'gateway_id=1',
    ],
    { env },
  );
  change = undefined;
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({
    data: { customer_transaction_id: 'api-null', currency: null },
  });
  const status = (await stepsOf(env, 'api-null')).filter((s) => s.step === 'status');
  expect(status).toMatchObject([{ outcome: 'ok' }]);
});

// What differs, answer by answer (flows/gate/answer-check.ts differences()): the words the journal and the
// error say, for the answers' two shapes (a client's parsed call; `mpay api`'s and replay's raw text).
it('names each field an answer gives otherwise: the reference, the type of its kind, the amount and currency of its step', () => {
  const record = { amount: '25.00', currency: 'GHS' };
  const init = { reference: 'ref-1', kind: 'deposit' as const, step: 'initiate' as const };
  const status = { ...init, step: 'status' as const };
  const initiated = { customer_transaction_id: 'ref-1', amount: 25, currency: { code: 'ghs' } };
  expect(differences(initiated, init, record)).toEqual([]);
  expect(
    differences({ customer_transaction_id: 'ref-2', amount: '26', currency: { code: 'NGN' } }, init, record),
  ).toEqual([
    "customer_transaction_id ref-2 (this transaction's is ref-1)",
    "amount 26 (this transaction's is 25.00)",
    "currency NGN (this transaction's is GHS)",
  ]);
  // a status update names its kind's gateway type, the initiate's amount and its currency code
  const updated = {
    customer_transaction_id: 'ref-1',
    type: 'Collection',
    initiate_amount: '25',
    currency_code: 'GHS',
  };
  expect(differences(updated, status, record)).toEqual([]);
  expect(differences({ ...updated, type: 'Disbursement' }, status, record)).toEqual([
    "type Disbursement (this transaction's is collection)",
  ]);
  expect(differences({ ...updated, type: 'collection' }, { ...status, kind: 'withdraw' }, record)).toEqual([
    "type collection (this transaction's is disbursement)",
  ]);
  expect(differences({ ...updated, initiate_amount: '24.99', currency_code: 'usd' }, status, record)).toEqual(
    ["amount 24.99 (this transaction's is 25.00)", "currency usd (this transaction's is GHS)"],
  );
  // an initiate's `type`, a status update's `amount` and `currency` (the gateway's), and a processed
  // answer's amounts are not the transaction's own: not compared
  expect(
    differences(
      { ...initiated, type: 'disbursement', currency_code: 'NGN', initiate_amount: 1 },
      init,
      record,
    ),
  ).toEqual([]);
  expect(differences({ ...updated, amount: '0.0004', currency: { code: 'BTC' } }, status, record)).toEqual(
    [],
  );
  expect(
    differences(
      {
        customer_transaction_id: 'ref-1',
        amount: '1',
        currency: { code: 'BTC' },
        initiate_amount: '1',
        currency_code: 'BTC',
        type: 'disbursement',
      },
      { ...init, step: 'processed' },
      record,
    ),
  ).toEqual([]);
  // an amount that is no number is compared as text, spaces aside
  expect(differences({ ...initiated, amount: ' n/a ' }, init, { ...record, amount: 'n/a' })).toEqual([]);
  expect(differences({ ...initiated, amount: 'n/a' }, init, { ...record, amount: ' n/a ' })).toEqual([]);
  expect(differences({ ...initiated, amount: 'n/a' }, init, record)).toEqual([
    "amount n/a (this transaction's is 25.00)",
  ]);
  // nothing to compare with: no record, no reference asked about, an answer with no data
  expect(differences({ ...initiated, amount: '1', currency: { code: 'X' } }, init, undefined)).toEqual([]);
  expect(
    differences({ customer_transaction_id: 'ref-2' }, { kind: 'deposit', step: 'initiate' }, record),
  ).toEqual([]);
  expect(differences(undefined, init, record)).toEqual([]);
  expect(differences(null, init, record)).toEqual([]);
  expect(differences({ data: null }, init, record)).toEqual([]);
  expect(differences({ ...initiated, currency: null }, init, record)).toEqual([]);
  expect(differences(['ref-2'], init, record)).toEqual([]);
  // a value the terminal would run is shown quoted
  expect(differences({ customer_transaction_id: "x'; rm -rf ~" }, init, record)[0]).toMatch(
    /^customer_transaction_id '/,
  );
});

it("a raw answer (mpay api, replay) is read from its text's data; a refusal or a body that is no JSON names nothing", () => {
  const at = { reference: 'ref-1', kind: 'withdraw' as const, step: 'initiate' as const };
  const raw = (status: number, body: unknown) => ({
    status,
    text: typeof body === 'string' ? body : JSON.stringify(body),
  });
  expect(differences(raw(200, { data: { customer_transaction_id: 'ref-9' } }), at, undefined)).toEqual([
    "customer_transaction_id ref-9 (this transaction's is ref-1)",
  ]);
  expect(differences(raw(299, { data: { customer_transaction_id: 'ref-9' } }), at, undefined)).toHaveLength(
    1,
  );
  // a body without `data` is read as it is
  expect(differences(raw(200, { customer_transaction_id: 'ref-9' }), at, undefined)).toHaveLength(1);
  expect(differences(raw(300, { data: { customer_transaction_id: 'ref-9' } }), at, undefined)).toEqual([]);
  expect(differences(raw(422, { data: { customer_transaction_id: 'ref-9' } }), at, undefined)).toEqual([]);
  expect(differences(raw(200, '<html>ref-9</html>'), at, undefined)).toEqual([]);
  // an object with a text but no status is an answer's own data
  expect(differences({ text: 'x', customer_transaction_id: 'ref-9' }, at, undefined)).toHaveLength(1);
});

it('the error of an answer about another transaction: exit 7, what differed, and what to ask the provider', () => {
  const err = anotherTransaction('the status update', { reference: 'ref-1', hash_token: 'abc123' }, [
    'a (x)',
    'b (y)',
  ]);
  expect(err).toBeInstanceOf(ServerError);
  expect(err.exitCode).toBe(exitCodes.server);
  expect(err.message).toBe(
    'The answer to the status update for ref-1 is about another transaction: a (x); b (y). mpay took it as no answer for this one, and sent nothing after it',
  );
  expect(err.hint).toBe(
    'Ask the provider which transaction the hash token abc123 belongs to before anything else is sent for ref-1; the journal records this step as failed with what differed',
  );
  expect(anotherTransaction('x', { reference: 'ref-1' }, ['a']).hint).toMatch(
    /^Ask the provider which transaction belongs to /,
  );
});
