// --query: a JMESPath filter over any command's --json document, so a script needs no jq; a bad expression
// is a usage error that points at the mistake, before anything is sent.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, sandbox, tempDir, requestCount } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  sb = await sandbox();
  env = cliEnv(sb, tempDir());
});
afterAll(() => sb.close());

const sends = () => requestCount(sb, 'POST /payments/initiate');

it('filters lists, records and the transaction envelope, and implies --json', async () => {
  expect((await mpay(['countries', '--query', '[].code'], { env })).json()).toEqual([
    'GH',
    'NG',
    'KE',
    'CM',
    'US',
    'CA',
  ]);
  expect((await mpay(['balances', '--query', "[?code=='GHS'].total_balance | [0]"], { env })).json()).toBe(
    25000,
  );
  const dep = await mpay(
    ['deposit', ...customerArgs({ reference: 'q-1' }), '--query', '{status: status, fee: settled.fee}'],
    { env },
  );
  expect(dep.code, dep.stderr).toBe(0);
  expect(dep.json()).toEqual({ status: 'pending', fee: 0.5 });
  expect((await mpay(['history', '--query', 'length(@)'], { env })).json()).toBe(1);
});

it('a bad expression is a usage error naming where it goes wrong, and nothing is sent', async () => {
  const before = await sends();
  const r = await mpay(['deposit', ...customerArgs({ reference: 'q-bad' }), '--query', "[?code=='GHS'"], {
    env,
  });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    /^mpay: Invalid --query "\[\?code=='GHS'": expected Rbracket, got: EOF at character 14\n/,
  );
  const lexer = await mpay(['countries', '--query', 'code ~ name', '--json'], { env });
  expect(lexer.code).toBe(2);
  expect(lexer.json().error.message).toBe(
    'Invalid --query "code ~ name": unknown character: ~ at character 6',
  );
  expect(await sends()).toBe(before);
});

it('a query that fails on the result prints the whole document with a warning: the command itself succeeded', async () => {
  const r = await mpay(['countries', '--query', 'nope(@)'], { env });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(
    /mpay: warning: --query failed on the result \(Unknown function: nope\(\)\); printing the whole document/,
  );
  expect(r.json()).toHaveLength(6);
});
