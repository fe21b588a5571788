import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, sandbox, tempDir, requestCount } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox({ slowMs: 5000 });
});
afterAll(() => sb.close());

const count = (route: string) => requestCount(sb, route);

it.concurrent(
  'a wrong code given with --otp says where the withdrawal stands and the command that finishes it',
  async ({ onTestFinished }) => {
    const sb = await sandbox();
    onTestFinished(() => sb.close());
    const env = cliEnv(sb, tempDir());
    const r = await mpay(
      ['withdraw', ...customerArgs({ reference: 'int-otp' }), '--otp', '000000', '--json'],
      {
        env,
      },
    );
    expect(r.code).toBe(4);
    expect(r.json().error.fields.otp).toBeDefined();
    expect(r.json().error.hint).toMatch(
      /^The withdrawal int-otp \(hash token [0-9a-f]{64}\) is initiated: continue with `mpay withdraw --resume int-otp --otp <CODE> --profile default --env sandbox --base-url http:\/\/127\.0\.0\.1:\d+`$/,
    );
    const finished = await mpay(['withdraw', '--resume', 'int-otp', '--otp', '123456', '--json'], { env });
    expect(finished.json().status).toBe('pending');
  },
);

it.concurrent('an empty --otp-stdin is refused before anything is printed or sent', async () => {
  const cfg = tempDir();
  const before = await count('POST /payments/withdraw/initiate');
  const r = await mpay(['withdraw', ...customerArgs({ reference: 'int-empty' }), '--otp-stdin'], {
    env: cliEnv(sb, cfg),
    input: '\n',
  });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^mpay: Nothing on stdin for --otp-stdin\n/);
  expect(await count('POST /payments/withdraw/initiate')).toBe(before);
  expect(existsSync(join(cfg, 'journal'))).toBe(false);
});
