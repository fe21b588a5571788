// The words of a replay's report: a trace of one call.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it.concurrent('replay of a trace of one call: "The one call answered as recorded"', async () => {
  const dir = tempDir();
  const env = cliEnv(sb, dir);
  const trace = `${dir}/one.har`;
  expect((await mpay(['countries', '--trace', trace], { env })).code).toBe(0);
  const r = await mpay(['replay', trace], { env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/The one call answered as recorded/);
  expect(r.stdout).not.toMatch(/All 1 calls/);
});
