// A trace's money call that names no transaction (a status update without a hash token) is not replayed:
// the plan and the report say so, nothing is sent for it, and nothing is journaled without a key, so no
// later command finds a line of the journal "damaged".
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, file, harEntry, harOf, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { Factory } from '../src/factory.js';
import { journaled } from '../src/flows/gate/journaled.js';
import { memoryIO } from '../src/io/io.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it("a trace's money call without a hash token is not replayed; no later command's output says damaged", async () => {
  const dir = tempDir();
  const env = cliEnv(sb, dir);
  const answer = '{"success":true,"data":{"status":"pending"}}';
  const har = file(
    'nokey.har',
    harOf([
      harEntry('payments/status/update', { status: 'pending', gateway_id: 1 }, { text: answer }),
      harEntry('payments/processed', { hash_token: '', phone_number: '+233201234567' }, { text: answer }),
    ]),
  );
  const plan = await mpay(['replay', har, '--dry-run'], { env });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout.match(/names no transaction \(no hash token\)/g)).toHaveLength(2);
  const before = await requestCounts(sb);
  const r = await mpay(['replay', har, '--json'], { env });
  const report = r.json();
  expect(JSON.stringify(report).match(/names no transaction/g)).toHaveLength(2);
  const after = await requestCounts(sb);
  expect(after['POST /payments/status/update'] ?? 0).toBe(before['POST /payments/status/update'] ?? 0);
  expect(after['POST /payments/processed'] ?? 0).toBe(before['POST /payments/processed'] ?? 0);
  for (const argv of [['history'], ['history', '--json'], ['doctor', '--json'], ['status', '--help']]) {
    const later = await mpay(argv, { env });
    expect(later.stdout + later.stderr, argv.join(' ')).not.toMatch(/damaged/);
  }
});

it('a journaled money step that names no transaction is refused on its own: nothing sent, nothing journaled', async () => {
  // journaled() itself, not through replay (whose plan leaves such a call out first): the refusal is the
  // journal's last guard, and it holds with no other in front of it
  const dir = tempDir();
  const env = cliEnv(sb, dir);
  const io = memoryIO({ env });
  const f = new Factory(io, {}, 'mpay-test', env);
  const deps = await f.flowDeps({ command: 'mpay deposit status-update' });
  const before = await requestCounts(sb);
  await expect(
    journaled(deps, { reference: '', kind: 'deposit', step: 'status' }, 'status update', (via) =>
      deps.client.statusUpdate({ hash_token: '', status: 'success' } as never, via),
    ),
  ).rejects.toThrow(/names no transaction/);
  expect(await requestCounts(sb)).toEqual(before);
  // a later command reads the journal whole: no line of it is damaged, and none was written
  const history = await mpay(['history', '--json'], { env });
  expect(history.code, history.stderr).toBe(0);
  expect(history.stdout + history.stderr).not.toMatch(/damaged/);
  expect(JSON.parse(history.stdout)).toEqual([]);
});
