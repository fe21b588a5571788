// A live money call with no one to ask (#47 item 5): without a terminal and without --yes it exits 16, kind
// confirmation_required (a code of its own, not a bad flag's 2), names the server, the amount and --yes,
// sends and journals nothing, and never suggests calling the server a sandbox.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, requestCounts, run, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

/** The money requests the sandbox has had (the token and the currencies' GET are not money). */
const moneyCalls = async () =>
  Object.entries(await requestCounts(sb)).filter(([route]) => route.startsWith('POST /payments'));

it('a live deposit in a script exits 16 with its own kind, names server, amount and --yes, sends nothing', async () => {
  const cfg = tempDir();
  // a remote-looking server no profile knows is live by itself, whatever --env says: here the run says live
  const env = cliEnv(sb, cfg, { MPAY_ENV: 'live' });
  const before = await moneyCalls();
  const r = await run(['deposit', ...customerArgs({ amount: '12.5', reference: 'live-conf-1' }), '--json'], {
    env,
  });
  expect(r.code, r.stderr).toBe(16);
  const error = r.json().error;
  expect(error.kind).toBe('confirmation_required');
  expect(error.status).toBeNull();
  expect(error.message).toContain(sb.url);
  expect(error.message).toContain('12.5 GHS');
  expect(`${error.message} ${error.hint}`).toContain('--yes');
  expect(`${r.stdout}${r.stderr}`).not.toMatch(/config set|base_url/);
  expect(await moneyCalls()).toEqual(before);
  expect(sb.state.list().some((t) => t.reference === 'live-conf-1')).toBe(false);
  const history = await mpay(['history', '--json'], { env });
  expect(history.json()).toEqual([]);
  // with --yes the same line goes through
  const yes = await run(['deposit', ...customerArgs({ reference: 'live-conf-1' }), '--yes', '--json'], {
    env,
  });
  expect(yes.code, yes.stderr).toBe(0);
});
