// The journal in SQLite (journal/database.ts, journal/journal.ts): an old journal of JSON lines imported at
// first use, once, and kept; a damaged or foreign file where the database should be refused with exit 9
// and left as it was; the file and its -wal and -shm private; synchronous FULL in WAL mode; no secret kept;
// rows never rewritten; and `mpay history export` of it, with cells no spreadsheet reads as a formula.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { parse } from 'csv-parse/sync';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFileError } from '../src/common/errors.js';
import { Journal } from '../src/journal/journal.js';
import { appender, immediate, openDatabase, storageError } from '../src/journal/database.js';
import { outputs } from '../src/ui/json-schemas.js';
import {
  cliEnv,
  customerArgs,
  journalEvents,
  requestCount,
  root,
  sandbox,
  tempDir,
  thrown,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const fixture = join(root, 'test', 'fixtures', 'journal-jsonl', 'default.sandbox.jsonl');

/** A config folder holding the journal of JSON lines an mpay before SQLite wrote. */
function oldConfig(): { cfg: string; old: string } {
  const cfg = tempDir();
  mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
  const old = join(cfg, 'journal', 'default.sandbox.jsonl');
  copyFileSync(fixture, old);
  chmodSync(old, 0o600);
  return { cfg, old };
}

const fixtureEvents = () =>
  readFileSync(fixture, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('an old journal of JSON lines', () => {
  it('is imported at first use, once, said on stderr, and kept renamed', async () => {
    const { cfg, old } = oldConfig();
    const env = { MPAY_CONFIG_DIR: cfg };
    const first = await mpay(['history', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().map((r: { reference: string }) => r.reference)).toEqual([
      'old-dep-3',
      'old-dep-2',
      'old-wd-1',
      'old-dep-1',
    ]);
    const db = join(cfg, 'journal', 'journal.db');
    expect(first.stderr).toContain(
      `mpay: imported ${fixtureEvents().length} journal lines of ${old} into ${db}; the old file is kept as ${old}.imported`,
    );
    expect(existsSync(old)).toBe(false);
    expect(readFileSync(`${old}.imported`, 'utf8')).toBe(readFileSync(fixture, 'utf8'));
    // every event as it was written, in its order
    expect(journalEvents(cfg)).toEqual(fixtureEvents());
    // The withdrawal's code request and its status came through: it is shown as the old mpay showed it.
    const wd = await mpay(['history', 'show', 'old-wd-1', '--json'], { env });
    expect(wd.code, wd.stderr).toBe(0);
    expect(wd.json().status).toBe('pending');

    const again = await mpay(['history', '--json'], { env });
    expect(again.stderr).not.toContain('imported');
    expect(again.json()).toEqual(first.json());
  });

  it('put back after its import (a crash between the commit and the rename) is not imported twice', async () => {
    const { cfg, old } = oldConfig();
    const env = { MPAY_CONFIG_DIR: cfg };
    expect((await mpay(['history', '--json'], { env })).code).toBe(0);
    renameSync(`${old}.imported`, old);
    const r = await mpay(['history', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('imported');
    expect(r.json()).toHaveLength(4);
    expect(journalEvents(cfg)).toEqual(fixtureEvents());
    expect(existsSync(old)).toBe(false);
  });

  it('an imported record keeps its place: continued only at the server and merchant it was made with', async () => {
    const { cfg } = oldConfig();
    const [first] = fixtureEvents() as { place: { server: string } }[];
    const r = await mpay(['deposit', ...customerArgs({ reference: 'old-dep-1' }), '--json'], {
      env: cliEnv(sb, cfg),
    });
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(new RegExp(`^old-dep-1 belongs to ${first!.place.server} `));
  });
});

describe('an old journal of JSON lines, as it may be found', () => {
  /** A config folder whose journal folder holds `text` as the old journal; the Journal reading it. */
  function oldText(text: string | Buffer, warn?: (m: string) => void) {
    const cfg = tempDir();
    mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
    const old = join(cfg, 'journal', 'default.sandbox.jsonl');
    writeFileSync(old, text, { mode: 0o600 });
    return { cfg, old, j: new Journal(cfg, 'default', 'sandbox', warn ? { warn } : {}) };
  }
  const line = (reference: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      at: '2026-01-10T10:00:00.000Z',
      reference,
      kind: 'deposit',
      step: 'initiate',
      outcome: 'sent',
      ...extra,
    });

  it('blank lines skipped, damaged ones counted in one warning and left out, a last line without its newline kept', () => {
    const text = [line('l-1'), '', '   ', '{not json', '{"x":1}', line('l-2'), line('l-3')].join('\n');
    const warned: string[] = [];
    const { old, j } = oldText(text, (m) => warned.push(m));
    expect(j.events().map((e) => e.reference)).toEqual(['l-1', 'l-2', 'l-3']);
    expect(warned).toEqual([`2 damaged line(s) of ${old} were not imported (the file is kept)`]);
    expect(readFileSync(`${old}.imported`, 'utf8')).toBe(text);
    // read and closed: no descriptor of this process is left on it
    const fds = readdirSync('/proc/self/fd').map((fd) => {
      try {
        return readlinkSync(join('/proc/self/fd', fd));
      } catch {
        return '';
      }
    });
    expect(fds.filter((f) => f.startsWith(old))).toEqual([]);
    // a journal told no warning imports it all the same
    expect(
      oldText(text)
        .j.events()
        .map((e) => e.reference),
    ).toEqual(['l-1', 'l-2', 'l-3']);
  });

  it('larger than one read (1 MB): every line whole across the reads, the WAL emptied after, the page cache put back', () => {
    const pad = 'x'.repeat(500);
    const refs = Array.from({ length: 3000 }, (_, i) => `big-${i}`);
    const warned: string[] = [];
    const { j } = oldText(`${refs.map((r) => line(r, { data: { pad } })).join('\n')}\n`, (m) =>
      warned.push(m),
    );
    expect(j.events().map((e) => e.reference)).toEqual(refs);
    expect(warned).toEqual([]);
    expect(statSync(`${j.file}-wal`).size).toBe(0);
    const db = openDatabase(j.dir, j.file, { create: false })!;
    expect(db.prepare('PRAGMA cache_size').get()).toMatchObject({ cache_size: -2000 });
  });

  it('a link is refused, exit 9, and what it points to left as it was', () => {
    const cfg = tempDir();
    mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
    const target = join(tempDir(), 'elsewhere.jsonl');
    writeFileSync(target, `${line('link-1')}\n`, { mode: 0o600 });
    const old = join(cfg, 'journal', 'default.sandbox.jsonl');
    symlinkSync(target, old);
    const j = new Journal(cfg, 'default', 'sandbox');
    expect(() => j.events()).toThrow(
      `The journal file ${old} is a link; mpay will not read or write through it`,
    );
    expect(readFileSync(target, 'utf8')).toBe(`${line('link-1')}\n`);
  });

  it('renamed by another mpay between its import and its rename: no error, imported once, said once', () => {
    const cfg = tempDir();
    mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
    const old = join(cfg, 'journal', 'default.sandbox.jsonl');
    writeFileSync(old, `${line('race-1')}\n{damaged\n`, { mode: 0o600 });
    const notes: string[] = [];
    // The warning about the damaged line is said inside the import's transaction, after the file was read:
    // the other mpay's rename is made there, the moment the race needs.
    const warn = () => renameSync(old, `${old}.imported`);
    const j = new Journal(cfg, 'default', 'sandbox', { warn, note: (m) => notes.push(m) });
    expect(j.events().map((e) => e.reference)).toEqual(['race-1']);
    expect(notes).toEqual([
      `mpay: imported 1 journal lines of ${old} into ${j.file}; the old file is kept as ${old}.imported`,
    ]);
    expect(existsSync(old)).toBe(false);
    expect(readFileSync(`${old}.imported`, 'utf8')).toBe(`${line('race-1')}\n{damaged\n`);
  });

  it('that cannot be renamed once imported: exit 9 naming it; its records are in the journal once', () => {
    const { old, j } = oldText(`${line('keep-1')}\n`);
    mkdirSync(`${old}.imported`);
    expect(() => j.events()).toThrow(
      expect.objectContaining({ exitCode: 9, message: `Cannot write the journal ${old} (EISDIR)` }),
    );
    expect(existsSync(old)).toBe(true);
    // the way cleared, the next use renames it, and does not import it again
    rmdirSync(`${old}.imported`);
    const next = new Journal(dirname(dirname(old)), 'default', 'sandbox');
    expect(next.events().map((e) => e.reference)).toEqual(['keep-1']);
    expect(existsSync(`${old}.imported`)).toBe(true);
    expect(existsSync(old)).toBe(false);
  });
});

describe('a file where the database should be that is not an mpay journal', () => {
  const cases: [string, (file: string) => void][] = [
    [
      'a damaged file',
      (f) => writeFileSync(f, 'SQLite format 3\u0000 but damaged after its header '.repeat(40)),
    ],
    ['text', (f) => writeFileSync(f, '{"reference":"x"}\n')],
    [
      "another program's SQLite database",
      (f) => {
        const db = new Database(f);
        db.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)');
        db.close();
      },
    ],
  ];
  for (const [n, [what, make]] of cases.entries())
    it(`${what}: exit 9 naming the file and what to do, nothing sent, the file left as it was`, async () => {
      const cfg = tempDir();
      mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
      const file = join(cfg, 'journal', 'journal.db');
      make(file);
      chmodSync(file, 0o600);
      const bytes = readFileSync(file);
      const before = await requestCount(sb, 'POST /payments/initiate');
      const env = cliEnv(sb, cfg);
      const r = await mpay(['deposit', ...customerArgs({ reference: `foreign-${n}` }), '--json'], { env });
      expect(r.code, r.stderr).toBe(9);
      const { message, hint } = r.json().error;
      expect(message).toContain(`${file} is not an mpay journal`);
      expect(hint).toContain(`mv '${file}' '${file}.aside'`);
      expect(await requestCount(sb, 'POST /payments/initiate')).toBe(before);
      const history = await mpay(['history', '--json'], { env });
      expect(history.code).toBe(9);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(existsSync(`${file}-wal`)).toBe(false);
      // done as the hint says, the deposit goes
      renameSync(file, `${file}.aside`);
      const ok = await mpay(['deposit', ...customerArgs({ reference: `foreign-${n}` }), '--json'], { env });
      expect(ok.code, ok.stderr).toBe(0);
    });
});

describe("the database's promises", () => {
  it('the file, its -wal and -shm are 0600 in a 0700 folder, whatever the umask', async () => {
    const cfg = tempDir();
    // (A worker thread, as Stryker's runner uses, cannot set the umask: there, the one it has.)
    const umask = isMainThread ? process.umask(0o022) : undefined;
    try {
      const r = await mpay(['deposit', ...customerArgs({ reference: 'mode-1' }), '--json'], {
        env: cliEnv(sb, cfg),
      });
      expect(r.code, r.stderr).toBe(0);
      // made so, not mended afterwards (common/private-path.ts warns when it sets a mode back)
      expect(r.stderr).not.toMatch(/was mode/);
    } finally {
      if (umask !== undefined) process.umask(umask);
    }
    const dir = join(cfg, 'journal');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of ['journal.db', 'journal.db-wal', 'journal.db-shm'])
      expect((statSync(join(dir, name)).mode & 0o777).toString(8), name).toBe('600');
  });

  it('keeps one connection a folder while its file is the same one: each write does not open it again', () => {
    const j = new Journal(tempDir(), 'default', 'sandbox');
    j.append({ reference: 'conn-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    const first = openDatabase(j.dir, j.file, { create: true });
    expect(openDatabase(j.dir, j.file, { create: true })).toBe(first);
    expect(openDatabase(j.dir, j.file, { create: false })).toBe(first);
  });

  it('names a busy journal as busy for every SQLITE_BUSY code, the extended ones too', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY'])
      expect(storageError('/j/journal.db', Object.assign(new Error('busy'), { code })).message).toBe(
        `Cannot write the journal /j/journal.db (${code}): other mpay processes kept it busy for 30 s`,
      );
  });

  it('commits each event in WAL mode with synchronous FULL', () => {
    const j = new Journal(tempDir(), 'default', 'sandbox');
    j.append({ reference: 'sync-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(j.durability()).toEqual({ journal_mode: 'wal', synchronous: 2 });
  });

  it('never keeps a secret-named key, whatever a caller passes', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox');
    const secrets = {
      otp: 'otp-secret-481516',
      token: 'token-secret-2342',
      merchant_key: 'mk-secret-0001',
      API_KEY: 'ak-secret-0002',
      Authorization: 'Bearer auth-secret-0003',
    };
    j.append({
      reference: 'secret-1',
      kind: 'withdraw',
      step: 'otp',
      outcome: 'sent',
      data: {
        ...secrets,
        phone_number: '+233201234567',
        hash_token: 'c0de',
        tokenized: true,
        otp_channel: 'sms',
      },
    });
    const [e] = journalEvents(cfg);
    // the names themselves, any case: not a name that only holds one
    expect(e!.data).toEqual({
      phone_number: '+233201234567',
      hash_token: 'c0de',
      tokenized: true,
      otp_channel: 'sms',
    });
    const dir = join(cfg, 'journal');
    const bytes = ['journal.db', 'journal.db-wal']
      .map((n) => readFileSync(join(dir, n)).toString('latin1'))
      .join('');
    expect(bytes).toContain('+233201234567');
    for (const v of Object.values(secrets)) expect(bytes).not.toContain(v);
  });

  it('never rewrites a row: a later step is a new row', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox');
    j.append({ reference: 'row-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    j.append({ reference: 'row-1', kind: 'deposit', step: 'initiate', outcome: 'ok', hash_token: 'ab12' });
    const db = new Database(join(cfg, 'journal', 'journal.db'));
    try {
      expect(() => db.exec("UPDATE events SET event = '{}'")).toThrow(/append-only/);
    } finally {
      db.close();
    }
    expect(journalEvents(cfg).map((e) => e.outcome)).toEqual(['sent', 'ok']);
    expect(j.find('ab12')?.steps).toEqual([expect.objectContaining({ step: 'initiate', outcome: 'ok' })]);
  });
});

/** A config folder whose journal.db is a SQLite file (0600) made by `sql`; its bytes as made. */
function sqliteJournalFile(sql: string): { cfg: string; file: string; bytes: Buffer } {
  const cfg = tempDir();
  mkdirSync(join(cfg, 'journal'), { mode: 0o700 });
  const file = join(cfg, 'journal', 'journal.db');
  const db = new Database(file);
  db.exec(sql);
  db.close();
  chmodSync(file, 0o600);
  return { cfg, file, bytes: readFileSync(file) };
}

/** A journal holding one event of `reference`; its database's connection and row writer, as mpay's. */
function journalWithOne(reference: string) {
  const cfg = tempDir();
  const j = new Journal(cfg, 'default', 'sandbox');
  j.append({ reference, kind: 'deposit', step: 'initiate', outcome: 'sent' });
  const db = openDatabase(j.dir, j.file, { create: true })!;
  return { cfg, j, db, write: appender(db) };
}

describe("the database's writes", () => {
  it("a new journal is marked mpay's (its application id and schema version), with its connection's settings", () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox');
    j.append({ reference: 'mark-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    const raw = new Database(j.file, { readonly: true });
    try {
      expect(raw.prepare('PRAGMA application_id').get()).toMatchObject({ application_id: 0x6d706179 });
      expect(raw.prepare('PRAGMA user_version').get()).toMatchObject({ user_version: 1 });
    } finally {
      raw.close();
    }
    // mpay's own connection: a writer waits 30 s for another's turn; the WAL is cut back to 64 MB
    const db = openDatabase(j.dir, j.file, { create: false })!;
    expect(db.prepare('PRAGMA busy_timeout').get()).toMatchObject({ timeout: 30000 });
    expect(db.prepare('PRAGMA journal_size_limit').get()).toMatchObject({ journal_size_limit: 67108864 });
  });

  it('a read of a journal not made yet leaves no trace: no folder, no file', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox');
    expect(j.events()).toEqual([]);
    expect(j.find('none-1')).toBeUndefined();
    expect(existsSync(join(cfg, 'journal'))).toBe(false);
    // nor a file in a folder that is there already (a lock's or a spool's made it)
    mkdirSync(j.dir, { mode: 0o700 });
    expect([...j.newest()]).toEqual([]);
    expect(j.expand('none-2')).toBe('none-2');
    expect(readdirSync(j.dir)).toEqual([]);
  });

  it('a link, a folder put where the file should be after the start: refused for a read and a write, exit 9, nothing written through it', () => {
    const victim = join(tempDir(), 'victim.db');
    writeFileSync(victim, 'keep me', { mode: 0o600 });
    const plants: [string, (file: string) => void, string][] = [
      ['a link', (f) => symlinkSync(victim, f), 'is a link; mpay will not read or write through it'],
      ['a folder', (f) => mkdirSync(f, { mode: 0o700 }), 'is not a file; mpay will not read or write it'],
    ];
    for (const [what, plant, says] of plants) {
      const cfg = tempDir();
      const j = new Journal(cfg, 'default', 'sandbox');
      mkdirSync(j.dir, { mode: 0o700 });
      plant(j.file);
      for (const use of [
        () => j.append({ reference: 'plant-1', kind: 'deposit', step: 'initiate', outcome: 'sent' }),
        () => j.events(),
      ]) {
        const err = thrown(() => use());
        expect(err, what).toBeInstanceOf(LocalFileError);
        expect(err, what).toMatchObject({ exitCode: 9, message: `The journal file ${j.file} ${says}` });
      }
      expect(readFileSync(victim, 'utf8')).toBe('keep me');
      expect(readdirSync(j.dir).sort(), what).toEqual(['journal.db']);
    }
  });

  it('a folder opened to readers after the start, in a journal told no warning, is set back to 0700 and written', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox');
    mkdirSync(j.dir, { mode: 0o700 });
    chmodSync(j.dir, 0o755);
    writeFileSync(`${j.file}-wal`, '', { mode: 0o600 });
    chmodSync(`${j.file}-wal`, 0o644);
    j.append({ reference: 'quiet-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(statSync(j.dir).mode & 0o777).toBe(0o700);
    expect(statSync(`${j.file}-wal`).mode & 0o777).toBe(0o600);
    expect(j.events().map((e) => e.reference)).toEqual(['quiet-1']);
  });

  it('a folder opened to readers between the start and the first write is set back to 0700, and said', () => {
    const cfg = tempDir();
    const warned: string[] = [];
    const j = new Journal(cfg, 'default', 'sandbox', { warn: (m) => warned.push(m) });
    mkdirSync(j.dir, { mode: 0o700 });
    chmodSync(j.dir, 0o755);
    j.append({ reference: 'w-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(statSync(j.dir).mode & 0o777).toBe(0o700);
    expect(warned).toEqual([`${j.dir} was mode 755; set it to 700 since it holds mpay's records`]);
  });

  it('a folder others can write put there between the start and the first write is refused, nothing written', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox');
    mkdirSync(j.dir, { mode: 0o700 });
    chmodSync(j.dir, 0o777);
    expect(() => j.append({ reference: 'w-2', kind: 'deposit', step: 'initiate', outcome: 'sent' })).toThrow(
      `The journal folder ${j.dir} is writable by other users (mode 777)`,
    );
    expect(existsSync(j.file)).toBe(false);
  });

  it("a journal of mpay's of another schema version is refused, exit 9, and left as it was", () => {
    const { cfg, file, bytes } = sqliteJournalFile(
      'PRAGMA application_id = 1836081529; PRAGMA user_version = 2; CREATE TABLE events (x)',
    );
    const j = new Journal(cfg, 'default', 'sandbox');
    const err = thrown(() =>
      j.append({ reference: 'v2-1', kind: 'deposit', step: 'initiate', outcome: 'sent' }),
    );
    expect(err).toMatchObject({
      exitCode: 9,
      message: expect.stringContaining(`${file} is not an mpay journal`),
    });
    expect(readFileSync(file).equals(bytes)).toBe(true);
    // an empty SQLite file (no table, no mark) is made a journal
    const empty = tempDir();
    mkdirSync(join(empty, 'journal'), { mode: 0o700 });
    new Database(join(empty, 'journal', 'journal.db')).close();
    chmodSync(join(empty, 'journal', 'journal.db'), 0o600);
    const k = new Journal(empty, 'default', 'sandbox');
    k.append({ reference: 'e-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(k.events().map((e) => e.reference)).toEqual(['e-1']);
  });

  it('a SQLite file marked by another program, with no table yet, is refused and left as it was', () => {
    const { cfg, file, bytes } = sqliteJournalFile('PRAGMA application_id = 42');
    const j = new Journal(cfg, 'default', 'sandbox');
    expect(() => j.append({ reference: 'id-1', kind: 'deposit', step: 'initiate', outcome: 'sent' })).toThrow(
      `${file} is not an mpay journal`,
    );
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('a journal moved aside between two writes: the next write starts a new journal in its place, the moved one is not written', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox');
    j.append({ reference: 'aside-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    for (const suffix of ['', '-wal', '-shm']) renameSync(j.file + suffix, `${j.file}.aside${suffix}`);
    j.append({ reference: 'aside-2', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(existsSync(j.file)).toBe(true);
    expect(j.events().map((e) => e.reference)).toEqual(['aside-2']);
    const moved = new Database(`${j.file}.aside`, { readonly: true });
    try {
      const refs = moved.prepare('SELECT reference FROM events ORDER BY id').all() as { reference: string }[];
      expect(refs.map((r) => r.reference)).toEqual(['aside-1']);
    } finally {
      moved.close();
    }
    // moved back with its -wal and -shm (the new one aside in its turn), the next write continues it
    for (const suffix of ['', '-wal', '-shm']) {
      renameSync(j.file + suffix, `${j.file}.second${suffix}`);
      renameSync(`${j.file}.aside${suffix}`, j.file + suffix);
    }
    j.append({ reference: 'aside-3', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(j.events().map((e) => e.reference)).toEqual(['aside-1', 'aside-3']);
  });

  it('the file, a -wal or a -shm others can read, left from before, is set back to 0600 before it is opened, and said', () => {
    for (const suffix of ['', '-wal', '-shm']) {
      const cfg = tempDir();
      const warned: string[] = [];
      const j = new Journal(cfg, 'default', 'sandbox', { warn: (m) => warned.push(m) });
      mkdirSync(j.dir, { mode: 0o700 });
      writeFileSync(j.file + suffix, '', { mode: 0o644 });
      chmodSync(j.file + suffix, 0o644);
      j.append({ reference: `side${suffix}`, kind: 'deposit', step: 'initiate', outcome: 'sent' });
      expect((statSync(j.file + suffix).mode & 0o777).toString(8), suffix).toBe('600');
      expect(warned, suffix).toEqual([
        `${j.file}${suffix} was mode 644; set it to 600 since it holds mpay's records`,
      ]);
      expect(j.events().map((e) => e.reference)).toEqual([`side${suffix}`]);
    }
  });

  it('each row holds its journal, record, reference, hash token, server, merchant and time in columns of their own, as sqlite3 reads them', () => {
    const cfg = tempDir();
    const place = {
      server: 'http://127.0.0.1:9',
      merchant: 'sha256:feedc0ffee12',
      profile: 'default',
      env: 'sandbox',
    };
    const j = new Journal(cfg, 'default', 'sandbox', { place });
    j.append({ reference: 'col-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    j.append({ reference: 'col-2', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    j.append({
      reference: 'col-1',
      kind: 'deposit',
      step: 'initiate',
      outcome: 'ok',
      hash_token: 'c0ffee01',
    });
    new Journal(cfg, 'default', 'sandbox').append({
      reference: 'col-3',
      kind: 'deposit',
      step: 'initiate',
      outcome: 'sent',
    });
    const raw = new Database(j.file, { readonly: true });
    try {
      const rows = raw
        .prepare(
          'SELECT id, journal, rec, reference, hash_token, server, merchant, at, event FROM events ORDER BY id',
        )
        .all() as Record<string, unknown>[];
      expect(rows.map(({ at: _at, event: _event, ...cols }) => cols)).toEqual([
        {
          id: 1,
          journal: j.name,
          rec: 1,
          reference: 'col-1',
          hash_token: null,
          server: place.server,
          merchant: place.merchant,
        },
        {
          id: 2,
          journal: j.name,
          rec: 2,
          reference: 'col-2',
          hash_token: null,
          server: place.server,
          merchant: place.merchant,
        },
        {
          id: 3,
          journal: j.name,
          rec: 1,
          reference: 'col-1',
          hash_token: 'c0ffee01',
          server: place.server,
          merchant: place.merchant,
        },
        {
          id: 4,
          journal: j.name,
          rec: 4,
          reference: 'col-3',
          hash_token: null,
          server: null,
          merchant: null,
        },
      ]);
      for (const row of rows) {
        const e = JSON.parse(String(row.event)) as { at: string; reference: string };
        expect([row.at, row.reference]).toEqual([e.at, e.reference]);
      }
    } finally {
      raw.close();
    }
  });

  it('a write that fails inside its transaction leaves no part of it, and the next write goes', () => {
    const { cfg, j, db, write } = journalWithOne('tx-1');
    expect(() =>
      immediate(db, () => {
        write(j.name, {
          reference: 'tx-2',
          kind: 'deposit',
          step: 'initiate',
          outcome: 'sent',
          at: new Date().toISOString(),
        });
        throw new Error('failed half-way');
      }),
    ).toThrow('failed half-way');
    j.append({ reference: 'tx-3', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(j.events().map((e) => e.reference)).toEqual(['tx-1', 'tx-3']);
    // the events of a reference are one record, in this journal and apart from another profile's
    j.append({ reference: 'tx-1', kind: 'deposit', step: 'initiate', outcome: 'ok', hash_token: 'abcd1234' });
    new Journal(cfg, 'other', 'sandbox').append({
      reference: 'tx-1',
      kind: 'withdraw',
      step: 'initiate',
      outcome: 'sent',
    });
    expect(j.records().map((r) => [r.reference, r.kind, r.steps.length])).toEqual([
      ['tx-1', 'deposit', 1],
      ['tx-3', 'deposit', 1],
    ]);
    expect([...j.newest()].map((r) => r.reference)).toEqual(['tx-3', 'tx-1']);
  });

  it('a BEGIN that SQLite answers SQLITE_BUSY at once (WAL recovery: busy_timeout does not wait for it) is tried again and writes once; another error is not tried again', () => {
    const { j, db, write } = journalWithOne('busy-0');
    /** The journal's connection, whose next BEGINs SQLite answers with `codes`, one each. */
    const answering = (codes: (string | undefined)[]) => {
      const begins: string[] = [];
      const conn: typeof db = {
        prepare: (sql) => db.prepare(sql),
        close: () => db.close(),
        exec: (sql) => {
          if (sql === 'BEGIN IMMEDIATE') {
            begins.push(sql);
            if (codes.length > 0)
              throw Object.assign(new Error('database is locked'), { code: codes.shift() });
          }
          db.exec(sql);
        },
      };
      return { conn, begins };
    };
    const event = (reference: string) => ({
      reference,
      kind: 'deposit' as const,
      step: 'initiate' as const,
      outcome: 'sent' as const,
      at: new Date().toISOString(),
    });
    const busy = answering(['SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY']);
    immediate(busy.conn, () => write(j.name, event('busy-1')));
    expect(busy.begins).toHaveLength(3);
    expect(j.events().map((e) => e.reference)).toEqual(['busy-0', 'busy-1']);
    for (const code of ['SQLITE_IOERR', undefined]) {
      const failing = answering([code]);
      expect(() => immediate(failing.conn, () => write(j.name, event('busy-2'))), String(code)).toThrow(
        'database is locked',
      );
      expect(failing.begins, String(code)).toHaveLength(1);
    }
    expect(j.events().map((e) => e.reference)).toEqual(['busy-0', 'busy-1']);
  });

  it('a journal busy at every BEGIN is tried after 5, 10, 20, 40, 80 ms, then every 100 ms, until the first BUSY past 30 s; then exit 9, saying why', () => {
    const { j, db, write } = journalWithOne('patience-0');
    // A clock of the test's own: the waits move it, no time passes.
    const start = 1_000_000;
    let now = start;
    const waits: number[] = [];
    const time = { now: () => now, sleep: (ms: number) => void (waits.push(ms), (now += ms)) };
    let begins = 0;
    const conn: typeof db = {
      prepare: (sql) => db.prepare(sql),
      close: () => db.close(),
      exec: (sql) => {
        if (sql !== 'BEGIN IMMEDIATE') return db.exec(sql);
        begins++;
        // the first BEGIN answers after 45 ms: the tries then meet the 30 s mark exactly
        if (begins === 1) now += 45;
        if (begins > 1000) throw Object.assign(new Error('tried for ever'), { code: 'SQLITE_MISUSE' });
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      },
    };
    const err = thrown(() =>
      immediate(conn, () => write(j.name, { ...j.lastAppended!, reference: 'patience-1' }), time),
    );
    expect(err).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(waits.slice(0, 7)).toEqual([5, 10, 20, 40, 80, 100, 100]);
    expect(new Set(waits.slice(5))).toEqual(new Set([100]));
    // a BUSY at 30 s exactly is tried again; the first one after, not
    expect(now - start).toBe(30_100);
    expect(begins).toBe(waits.length + 1);
    // as a person reads it (Journal.append tells its errors so)
    const told = storageError(j.file, err);
    expect(told).toBeInstanceOf(LocalFileError);
    expect(told).toMatchObject({
      exitCode: 9,
      message: `Cannot write the journal ${j.file} (SQLITE_BUSY): other mpay processes kept it busy for 30 s`,
      hint: 'Try again once they are done: a batch, a loop of commands or `mpay run` writing the same journal',
    });
    expect(j.events().map((e) => e.reference)).toEqual(['patience-0']);
  });

  it('a database error is told as mpay tells it: a damaged file is no journal; any other, a journal that cannot be written', () => {
    const file = '/x/journal.db';
    for (const code of ['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX'])
      expect(storageError(file, Object.assign(new Error('x'), { code })).message).toMatch(
        /^\/x\/journal\.db is not an mpay journal/,
      );
    const full = storageError(
      file,
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
    );
    expect(full).toBeInstanceOf(LocalFileError);
    expect(full.message).toBe('Cannot write the journal /x/journal.db (SQLITE_FULL)');
    expect((full as LocalFileError).hint).toBe(
      'Free disk space or make the folder writable: mpay records every money-moving request before it sends it',
    );
    expect(storageError(file, Object.assign(new Error('x'), { code: 'SQLITE_IOERR_FSYNC' })).message).toBe(
      'Cannot write the journal /x/journal.db (SQLITE_IOERR_FSYNC)',
    );
    const other = new Error('not a database error');
    expect(storageError(file, other)).toBe(other);
    const told = new LocalFileError('told already');
    expect(storageError(file, told)).toBe(told);
  });
});

describe('mpay history export', () => {
  // Values a spreadsheet would read as a formula, in a reference and in a customer's data.
  const hostile = ['=1+1', '@SUM(A1)', '\tx', '\rx', '+1', '-1'];

  function hostileJournal(): string {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox', {
      place: {
        server: 'http://127.0.0.1:1',
        merchant: 'sha256:0123456789ab',
        profile: 'default',
        env: 'sandbox',
      },
    });
    hostile.forEach((reference, i) => {
      j.append({
        reference,
        kind: 'deposit',
        step: 'initiate',
        outcome: 'sent',
        data: {
          amount: '10',
          currency: 'GHS',
          customer: { first_name: hostile[(i + 1) % hostile.length], email: `=HYPERLINK("x${i}")` },
        },
      });
      j.append({
        reference,
        kind: 'deposit',
        step: 'initiate',
        outcome: 'ok',
        hash_token: `feed${i}`,
        data: { status: i % 2 ? 'initiated' : 'pending' },
      });
    });
    return cfg;
  }

  it('CSV: every record, oldest first, and no cell a spreadsheet reads as a formula', async () => {
    const cfg = hostileJournal();
    const r = await mpay(['history', 'export', '--format', 'csv'], { env: { MPAY_CONFIG_DIR: cfg } });
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true, relax_column_count: false }) as Record<string, string>[];
    expect(rows).toHaveLength(hostile.length);
    for (const row of rows)
      for (const [k, cell] of Object.entries(row)) expect(cell, `${k}: ${cell}`).not.toMatch(/^[=+\-@\t\r]/);
    // each value is there, after the quote that makes it text (a carriage return shown as \x0d)
    expect(rows.map((x) => x.reference)).toEqual(["'=1+1", "'@SUM(A1)", "'\tx", '\\x0dx', "'+1", "'-1"]);
    expect(rows[0]!.customer_first_name).toBe("'@SUM(A1)");
    expect(rows[0]!.customer_email).toBe(`'=HYPERLINK("x0")`);
    expect(rows[0]).toMatchObject({
      server: 'http://127.0.0.1:1',
      merchant: 'sha256:0123456789ab',
      hash_token: 'feed0',
      kind: 'deposit',
      amount: '10',
      currency: 'GHS',
      status: 'pending',
    });
    expect(rows[0]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('JSON lines match their schema; --status and --since pick', async () => {
    const cfg = hostileJournal();
    const env = { MPAY_CONFIG_DIR: cfg };
    const r = await mpay(['history', 'export'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.reference)).toEqual(hostile);
    for (const l of lines)
      expect(outputs['history-export'].safeParse(l).success, JSON.stringify(l)).toBe(true);
    const pending = await mpay(['history', 'export', '--status', 'pending'], { env });
    expect(
      pending.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).reference),
    ).toEqual(['=1+1', '\tx', '+1']);
    const future = await mpay(['history', 'export', '--since', '2999-01-01'], { env });
    expect(future.code, future.stderr).toBe(0);
    expect(future.stdout).toBe('');
    const bad = await mpay(['history', 'export', '--status', 'nope'], { env });
    expect(bad.code).toBe(2);
  });
});
