import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  holdingProxy,
  isRoot,
  nobody,
  requestCount,
  sandbox,
  tempDir,
  waitUntil,
} from './helpers.js';
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

it.skipIf(!isRoot)(
  "a journal folder of another user's, open to all, is refused: nothing sent, nothing written",
  async () => {
    const cfg = tempDir();
    const dir = join(cfg, 'journal');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    chownSync(dir, nobody, nobody);
    const e = await refusedDeposit(cfg, 'private-1');
    expect(e.message).toBe(
      `The journal folder ${dir} belongs to another user (uid ${nobody}); mpay will not read or write it`,
    );
    expect(e.hint).toContain(`chown -R 0 '${dir}'`);
    expect(e.hint).toContain('MPAY_CONFIG_DIR');
    expect(readdirSync(dir)).toEqual([]);
  },
);

it('a journal folder of the user that others can write is refused, with the chmod that mends it', async () => {
  const cfg = tempDir();
  const dir = join(cfg, 'journal');
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  const e = await refusedDeposit(cfg, 'private-2');
  expect(e.message).toBe(
    `The journal folder ${dir} is writable by other users (mode 777); mpay will not read or write it`,
  );
  expect(e.hint).toContain(`chmod 700 '${dir}'`);
  // Mended as the hint says, the deposit goes.
  chmodSync(dir, 0o700);
  const ok = await mpay(['deposit', ...customerArgs({ reference: 'private-2' }), '--json'], {
    env: cliEnv(sb, cfg),
  });
  expect(ok.code, ok.stderr).toBe(0);
});

it('a journal file that is a link into another file is refused, and the file it points to is left as it was', async () => {
  const cfg = tempDir();
  mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
  const victim = join(tempDir(), 'victim.txt');
  writeFileSync(victim, 'keep me');
  symlinkSync(victim, journalOf(cfg));
  const e = await refusedDeposit(cfg, 'private-3');
  expect(e.message).toBe(
    `The journal file ${journalOf(cfg)} is a link; mpay will not read or write through it`,
  );
  expect(readFileSync(victim, 'utf8')).toBe('keep me');
});

it('a -wal or -shm beside the journal that is a link into another file is refused, and the file it points to is left as it was', async () => {
  for (const suffix of ['-wal', '-shm']) {
    const cfg = tempDir();
    mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, journalOf(cfg) + suffix);
    const e = await refusedDeposit(cfg, `private-link${suffix}`);
    expect(e.message, suffix).toBe(
      `The journal file ${journalOf(cfg)}${suffix} is a link; mpay will not read or write through it`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  }
});

it.skipIf(!isRoot)("a journal file of another user's, writable by all, is not read", async () => {
  const cfg = tempDir();
  mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
  const file = journalOf(cfg);
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), reference: 'planted-1', kind: 'deposit', step: 'processed', outcome: 'ok' })}\n`,
  );
  chmodSync(file, 0o666);
  chownSync(file, nobody, nobody);
  const r = await mpay(['history', '--json'], { env: cliEnv(sb, cfg) });
  expect(r.code, r.stderr).toBe(9);
  expect(r.json().error.message).toBe(
    `The journal file ${file} belongs to another user (uid ${nobody}); mpay will not read or write it`,
  );
  expect(r.stdout).not.toContain('planted-1');
});

it.skipIf(!isRoot)("a lock folder of another user's is refused before a batch sends a row", async () => {
  const cfg = tempDir();
  const locks = join(cfg, 'journal', 'locks');
  mkdirSync(locks, { recursive: true, mode: 0o700 });
  chmodSync(join(cfg, 'journal'), 0o700);
  chownSync(locks, nobody, nobody);
  const rows = join(tempDir(), 'rows.csv');
  writeFileSync(
    rows,
    'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,13,Ama,+233201234000,a@example.org,1\n',
  );
  const before = await initiates();
  const r = await mpay(['deposit', 'batch', rows, '--json'], { env: cliEnv(sb, cfg) });
  expect(r.code, r.stderr).toBe(9);
  expect(r.stderr).toContain(`The journal lock folder ${locks} belongs to another user (uid ${nobody})`);
  expect(await initiates()).toBe(before);
});

it.skipIf(!isRoot)(
  "a sandbox --data file of another user's is refused before the sandbox starts",
  async () => {
    const data = join(tempDir(), 'state.json');
    writeFileSync(data, '{"transactions":[]}');
    chownSync(data, nobody, nobody);
    const r = await mpay(['sandbox', '--port', '0', '--data', data]);
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toContain(`mpay: The sandbox data file ${data} belongs to another user (uid ${nobody})`);
    // the fix for a file named by --data: another file, or this one taken over; not a config folder
    const hint = /hint: ([^]*)/.exec(r.stderr)?.[1]?.replace(/\s+/g, ' ') ?? '';
    expect(hint).toContain('Pass a --data file of your own');
    expect(hint).toContain(`chown 0 '${data}', then chmod 600 '${data}'`);
    expect(hint).not.toMatch(/MPAY_CONFIG_DIR|chown -R/);
  },
);

it('a spool folder that is a link is refused before a batch from stdin writes its rows or sends one', async () => {
  const cfg = tempDir();
  mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
  const elsewhere = tempDir();
  symlinkSync(elsewhere, join(cfg, 'journal', 'spool'));
  const before = await initiates();
  const r = await mpay(['deposit', 'batch', '-', '--json'], {
    env: cliEnv(sb, cfg),
    input:
      'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,17,Ama,+233201234000,spool@example.org,1\n',
  });
  expect(r.code, r.stderr).toBe(9);
  expect(r.stderr).toContain(
    `The batch spool folder ${join(cfg, 'journal', 'spool')} is a link; mpay will not read or write through it`,
  );
  expect(readdirSync(elsewhere)).toEqual([]);
  expect(await initiates()).toBe(before);
});

// The journal's paths are checked again as each line is written (journal.ts, append): the folder, the
// file opened without following a link, and the file checked once open. A path changed while a deposit
// waits on its initiate (the request held by a proxy of the test's) is met at the answer's line.
async function swappedWhileWaiting(
  reference: string,
  swap: (cfg: string, file: string) => void,
): Promise<{ code: number | null; stderr: string }> {
  const cfg = tempDir();
  const proxy = await holdingProxy(sb.url, 'payments/initiate');
  try {
    const running = mpay(['deposit', ...customerArgs({ reference }), '--json'], {
      env: cliEnv({ url: proxy.url }, cfg),
    });
    await waitUntil('the initiate held at the proxy', () => proxy.held() === 1);
    swap(cfg, journalOf(cfg));
    proxy.release();
    return await running;
  } finally {
    await proxy.close();
  }
}

it('the journal file replaced by a link while a deposit waits: its answer is not written through it', async () => {
  const target = join(tempDir(), 'target');
  writeFileSync(target, 'untouched\n', { mode: 0o600 });
  let file = '';
  const r = await swappedWhileWaiting('private-mid-1', (_, f) => {
    file = f;
    renameSync(f, `${f}.aside`);
    symlinkSync(target, f);
  });
  expect(r.code, r.stderr).not.toBe(0);
  expect(r.stderr).toContain(`The journal file ${file} is a link; mpay will not read or write through it`);
  expect(readFileSync(target, 'utf8')).toBe('untouched\n');
});

it.skipIf(!isRoot)(
  "the journal file replaced by another user's while a deposit waits: nothing is written into it",
  async () => {
    let file = '';
    const r = await swappedWhileWaiting('private-mid-2', (_, f) => {
      file = f;
      renameSync(f, `${f}.aside`);
      writeFileSync(f, 'planted\n');
      chownSync(f, nobody, nobody);
      chmodSync(f, 0o600);
    });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain(`The journal file ${file} belongs to another user (uid ${nobody})`);
    expect(readFileSync(file, 'utf8')).toBe('planted\n');
  },
);

it.skipIf(!isRoot)(
  "the journal folder replaced by another user's while a deposit waits: nothing is written into it",
  async () => {
    let dir = '';
    const r = await swappedWhileWaiting('private-mid-3', (cfg) => {
      dir = join(cfg, 'journal');
      renameSync(dir, `${dir}.aside`);
      mkdirSync(dir);
      chownSync(dir, nobody, nobody);
      chmodSync(dir, 0o700);
    });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain(`The journal folder ${dir} belongs to another user (uid ${nobody})`);
    expect(readdirSync(dir)).toEqual([]);
  },
);
