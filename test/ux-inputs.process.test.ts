// What a person types: login checks the merchant key as soon as it is entered; logout forgets tokens (and
// with --all the credentials); an amount too large says it is above the maximum; a phone is put in
// international form with the country's dial code, or refused with an example, and one given by flag is
// not asked for again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, runPrinted, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('a resume refused for want of --gateway offers the command with --gateway in it, which pasted with an id finishes the deposit', async () => {
  const own = await sandbox();
  try {
    const env = cliEnv(own, tempDir());
    const started = await mpay(
      ['deposit', 'initiate', ...customerArgs({ gateway: '', reference: 'gw-1' }), '--json'],
      {
        env,
      },
    );
    expect(started.code, started.stderr).toBe(0);
    const r = await mpay(['deposit', '--resume', 'gw-1', '--no-input', '--json'], { env });
    expect(r.code, r.stdout).toBe(2);
    expect(r.json().error.fields.gateway_id).toEqual(['required']);
    const cmd = /`([^`]*)`/.exec(r.json().error.hint)![1]!;
    expect(cmd).toMatch(/ --gateway <ID>( |$)/);
    const done = await runPrinted(cmd.replace('<ID>', '1'), { ...env, MPAY_BASE_URL: 'http://127.0.0.1:9' });
    expect(done.code, done.stderr).toBe(0);
    expect(own.state.list().find((t) => t.reference === 'gw-1')?.status).toBe('pending');
  } finally {
    await own.close();
  }
});
