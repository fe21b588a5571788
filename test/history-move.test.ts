// #33 item 9: a withdrawal started through a proxy belongs to the proxy's URL; once the proxy is gone,
// `mpay history move` (journaled) moves it to the upstream, where --resume then continues it. A real
// sandbox behind a forwarding proxy of the test's, the real command classes.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, holdingProxy, sandbox, tempDir, journalText } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('a record made through a proxy is moved to the upstream, journaled, and continued there', async () => {
  const proxy = await holdingProxy(sb.url, '/nothing-held');
  proxy.release();
  const cfg = tempDir();
  const env = cliEnv(undefined, cfg);
  let started;
  try {
    started = await mpay(
      [
        'withdraw',
        ...customerArgs({ reference: 'moved-1' }),
        '--base-url',
        proxy.url,
        '--no-input',
        '--json',
      ],
      { env },
    );
  } finally {
    await proxy.close();
  }
  expect(started.code, started.stderr).toBe(0);
  expect(started.json().next).toBe('otp');
  const resume = [
    'withdraw',
    '--resume',
    'moved-1',
    '--otp',
    demoMerchant.otp,
    '--base-url',
    sb.url,
    '--json',
  ];
  const refused = await mpay(resume, { env });
  expect(refused.code).toBe(2);
  // the move: by reference, or every record of the proxy's URL
  const nothing = await mpay(['history', 'move', '--from', 'http://127.0.0.1:9', '--to', sb.url], { env });
  expect(nothing.code).toBe(2);
  const moved = await mpay(['history', 'move', '--from', proxy.url, '--to', sb.url, '--json'], { env });
  expect(moved.code, moved.stderr).toBe(0);
  expect(moved.json().moved).toEqual([{ reference: 'moved-1', from: proxy.url, to: sb.url }]);
  const again = await mpay(['history', 'move', 'moved-1', '--to', sb.url], { env });
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(/lives at .* already/);
  const done = await mpay(resume, { env });
  expect(done.code, done.stderr).toBe(0);
  expect(done.json().status).toBe('pending');
  const lines = journalText(cfg).trim().split('\n');
  expect(lines.map((l) => JSON.parse(l)).filter((e) => e.step === 'moved')).toHaveLength(1);
});
