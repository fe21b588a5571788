// `mpay sandbox` as a process: it prints its URL and the demo credentials, serves, keeps state in --data,
// and stops cleanly on Ctrl-C (SIGINT). The tests share nothing (each its own sandbox, port and folders)
// and run at once; the clients that only feed a sandbox run in-process.
import { expect, it } from 'vitest';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, customerArgs, sandbox, tempDir, journalText } from './helpers.js';
import { mpay, optionsOf } from './in-process.js';
import { settingLines } from '../src/commands/sandbox/banner.js';
import type { SandboxOptions } from '../src/commands/sandbox/run.js';

/** Several sandboxes start at once, each a Node start or two, on a machine that may be loaded. */
const slow = { timeout: 90_000 };

it.concurrent('a --data path that is a link is refused before the sandbox starts', slow, async () => {
  const dir = tempDir();
  const planted = join(dir, 'planted.json');
  writeFileSync(planted, '{"transactions":[]}');
  const link = join(dir, 'state.json');
  symlinkSync(planted, link);
  const r = await mpay(['sandbox', '--port', '0', '--data', link]);
  expect(r.code, r.stderr).toBe(9);
  expect(r.stderr).toContain(`mpay: The sandbox data file ${link} is a link`);
});

it.concurrent('a snapshot beside --data that is a link is refused the same way', slow, async () => {
  const dir = tempDir();
  const planted = join(dir, 'planted.snapshot');
  writeFileSync(planted, 'MPAYSNAP');
  const data = join(dir, 'sandbox.log');
  symlinkSync(planted, `${data}.snapshot`);
  const r = await mpay(['sandbox', '--port', '0', '--data', data]);
  expect(r.code, r.stderr).toBe(9);
  expect(r.stderr).toContain(`mpay: The sandbox snapshot file ${data}.snapshot is a link`);
});

// In-process: what is filtered is the journal's, not the process's.
it.concurrent('history filters by kind, status, reference and date', slow, async () => {
  const dir = tempDir();
  const s = await sandbox();
  try {
    const env = cliEnv(s, dir);
    expect((await mpay(['deposit', ...customerArgs({ reference: 'h-dep' }), '--json'], { env })).code).toBe(
      0,
    );
    expect((await mpay(['withdraw', ...customerArgs({ reference: 'h-wd' }), '--json'], { env })).code).toBe(
      0,
    );
    const refs = async (...args: string[]) =>
      (await mpay(['history', ...args, '--json'], { env }))
        .json()
        .map((r: { reference: string }) => r.reference);
    expect(await refs()).toEqual(['h-wd', 'h-dep']);
    expect(await refs('--kind', 'withdraw')).toEqual(['h-wd']);
    expect(await refs('--status', 'pending')).toEqual(['h-dep']);
    expect(await refs('--status', 'initiated')).toEqual(['h-wd']);
    expect(await refs('--reference', 'h-dep')).toEqual(['h-dep']);
    expect(await refs('--since', '2999-01-01')).toEqual([]);
    expect(await refs('--until', new Date().toISOString().slice(0, 10))).toEqual(['h-wd', 'h-dep']);
    const csv = await mpay(['history', '--csv', '--columns', 'reference,kind,status'], { env });
    expect(csv.stdout.trim().split('\n')).toEqual([
      'reference,kind,status',
      'h-wd,withdraw,initiated',
      'h-dep,deposit,pending',
    ]);
    expect((await mpay(['history', '--since', 'yesterday'], { env })).code).toBe(2);
    // No secret in the journal.
    const journal = journalText(dir);
    expect(journal).not.toMatch(/mk_sandbox_demo|ak_sandbox_demo|"otp":|"token":|"api_key":|"merchant_key":/);
  } finally {
    await s.close();
  }
});

it('the banner says how long a slow answer waits only when slow is one of the faults', async () => {
  const faultsLine = async (argv: string[]) => {
    const { options, result } = await optionsOf(['sandbox', ...argv]);
    expect(result.code, result.stderr).toBe(0);
    return settingLines(options as SandboxOptions, undefined, undefined).find((l) => /faults:/.test(l));
  };
  expect(await faultsLine(['--fault', '500'])).toBe('  faults:       500 on 10% of requests');
  expect(await faultsLine(['--fault', '500', '--fault', 'slow', '--slow-ms', '1200'])).toBe(
    '  faults:       500, slow on 10% of requests (a slow answer waits 1200 ms)',
  );
  expect(await faultsLine([])).toBe('  faults:       none');
});
