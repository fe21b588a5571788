// The journal is private like the config (common/private-path.ts): its folder, its file, its index and lock
// folders, the spool of a batch from stdin and the sandbox's --data file must be the user's own, not a
// link, and writable by no one else; otherwise mpay exits 9 naming the path and how to mend it, with
// nothing sent and nothing written there. Another user's files are made with chown (the tests run as root
// where they can).
import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, requestCount, sandbox, spawnMpay, tempDir, waitUntil } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const initiates = () => requestCount(sb, 'POST /payments/initiate');
const journalOf = (cfg: string) => join(cfg, 'journal', 'journal.db');

/** A deposit refused with exit 9 before anything was sent; its error message. */
async function refusedDeposit(cfg: string, reference: string): Promise<{ message: string; hint: string }> {
  const before = await initiates();
  const r = await mpay(['deposit', ...customerArgs({ reference }), '--json'], { env: cliEnv(sb, cfg) });
  expect(r.code, r.stderr).toBe(9);
  expect(await initiates()).toBe(before);
  return r.json().error;
}

it("a journal file that is a link to the user's own journal: the hint moves that file into place, and its history is kept", async () => {
  const cfg = tempDir();
  mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
  // a journal with one transaction, kept elsewhere (a folder with a space and a quote in its name)
  const first = await mpay(['deposit', ...customerArgs({ reference: 'moved-1' }), '--json'], {
    env: cliEnv(sb, cfg),
  });
  expect(first.code, first.stderr).toBe(0);
  const elsewhere = join(tempDir(), "kofi's journals");
  mkdirSync(elsewhere, { mode: 0o700 });
  const target = join(elsewhere, 'journal.db');
  renameSync(journalOf(cfg), target);
  symlinkSync(target, journalOf(cfg));
  const e = await refusedDeposit(cfg, 'moved-2');
  const command = `rm '${journalOf(cfg)}' && mv '${elsewhere.replace(/'/g, "'\\''")}/journal.db' '${journalOf(cfg)}'`;
  expect(e.hint).toContain(command);
  expect(e.hint).not.toMatch(/^Remove the link/);
  // done as the hint says, the journal is in place with its history
  execFileSync('bash', ['-c', command]);
  const history = await mpay(['history', '--json'], { env: cliEnv(sb, cfg) });
  expect(history.code, history.stderr).toBe(0);
  expect(JSON.stringify(history.json())).toContain('moved-1');
});

it('a journal file with a second name (a hard link) is refused, and the copy the hint makes is accepted', async () => {
  const cfg = tempDir();
  mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
  const first = await mpay(['deposit', ...customerArgs({ reference: 'linked-1' }), '--json'], {
    env: cliEnv(sb, cfg),
  });
  expect(first.code, first.stderr).toBe(0);
  const other = join(tempDir(), 'other-name.db');
  linkSync(journalOf(cfg), other);
  const before = readFileSync(other, 'utf8');
  const e = await refusedDeposit(cfg, 'linked-2');
  expect(e.message).toBe(
    `The journal file ${journalOf(cfg)} has 2 names (hard links); mpay will not read or write it`,
  );
  expect(readFileSync(other, 'utf8')).toBe(before); // nothing written under the other name
  const copy = /cp -p .*$/.exec(e.hint)?.[0];
  expect(copy, e.hint).toBeDefined();
  execFileSync('bash', ['-c', copy!]);
  const ok = await mpay(['deposit', ...customerArgs({ reference: 'linked-2' }), '--json'], {
    env: cliEnv(sb, cfg),
  });
  expect(ok.code, ok.stderr).toBe(0);
  expect(readFileSync(other, 'utf8')).toBe(before);
});

it('a sandbox --data file in a folder every user can write, without the sticky bit, is refused; with it, accepted', async () => {
  const open = join(tempDir(), 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  const data = join(open, 'state.log');
  const r = await mpay(['sandbox', '--port', '0', '--data', data]);
  expect(r.code, r.stderr).toBe(9);
  expect(r.stderr.replace(/\s+/g, ' ')).toContain(
    `The folder ${open} of the sandbox data file ${data} is writable by every user and has no sticky bit (mode 777)`,
  );
  expect(r.stderr.replace(/\s+/g, ' ')).toContain(`chmod o-w '${open}'`);
  expect(readdirSync(open)).toEqual([]);
  // a folder like /tmp (sticky: only a file's owner may replace it) is accepted
  chmodSync(open, 0o1777);
  const sb2 = spawnMpay(['sandbox', '--port', '0', '--data', data], {});
  let out = '';
  sb2.child.stdout!.on('data', (d) => (out += d));
  try {
    await waitUntil('the sandbox to listen', () => /listening on/.test(out));
  } finally {
    sb2.child.kill('SIGTERM');
  }
  expect((await sb2.done).code).toBe(0);
});
