// The sandbox's data file (--data, src/sandbox/tx-store.ts: an SQLite database): a restart keeps every
// transaction in its state, tokens and balances; a damaged or foreign file where the database should be is
// refused (exit 9, the file named, left as it was); a data file of the formats before SQLite (format 2, a
// log; version 1, one JSON object) is imported at its first start, the old file kept beside it. Real HTTP
// to a real sandbox.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'libsql';
import { sandbox, tempDir } from './helpers.js';
import { call, fill, initiate, merchantGhs, tokenOf } from './sandbox-calls.js';

const fixture = join(import.meta.dirname, 'fixtures', 'sandbox-old-format');

// The tests share nothing (each its own folder and sandboxes) and run at once.
describe('the sandbox data file', { concurrent: true }, () => {
  it('a restart keeps every transaction in its state, the tokens, the balances and the next id', async () => {
    const file = join(tempDir(), 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const { old, fresh, d1 } = await fill(first);
    const before = first.state.list();
    const balance = await merchantGhs(first, fresh);
    expect(before.map((t) => t.status)).toEqual([
      'initiated',
      'failed',
      'pending',
      'initiated',
      'pending',
      'initiated',
    ]);
    expect(before[3]!.wallet_address).toBeTruthy();
    expect(before[4]!.paid).toBe(true);
    expect(before[5]!.otp_sent).toBe(true);
    await first.close();

    const second = await sandbox({ dataFile: file });
    try {
      expect(second.state.list()).toEqual(before);
      expect(await merchantGhs(second, fresh)).toBe(balance);
      expect((await call(second, 'merchant/currencies', undefined, old)).status).toBe(401);
      // The hash tokens handed out before the restart still find their transactions.
      const done = await call(
        second,
        'payments/processed',
        { hash_token: d1.hash, phone_number: '+233201234567' },
        fresh,
      );
      expect(done.status).toBe(200);
      expect(done.json.data.id).toBe(before[0]!.id);
      await initiate(second, fresh, 'deposit');
      expect(second.state.list().at(-1)!.id).toBe(before.at(-1)!.id + 1);
    } finally {
      await second.close();
    }
    expect(second.logs.filter((l) => /recovered|converted/.test(l))).toEqual([]);
  });

  it('a file of format 2 (a log, and its snapshot) is imported at its first start, said, its files kept beside it; what it handed out still holds', async () => {
    const dir = tempDir();
    cpSync(fixture, dir, { recursive: true });
    const file = join(dir, 'sandbox.log');
    const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8'));
    const log = readFileSync(file);
    const first = await sandbox({ dataFile: file });
    try {
      expect(first.logs).toContain(
        `converted ${file} to an SQLite database (8 transactions; the old file kept as ${file}.format2)`,
      );
      expect(first.state.list()).toEqual(expected.transactions);
      expect(first.state.dataStart).toEqual({ fresh: false, transactions: 8 });
      expect(readFileSync(`${file}.format2`).equals(log)).toBe(true);
      // the database's own files (its write-ahead log) aside, nothing left of the import
      expect(
        readdirSync(dir)
          .filter((n) => !n.endsWith('-wal'))
          .sort(),
      ).toEqual([
        'expected.json',
        'sandbox.log',
        'sandbox.log.format2',
        'sandbox.log.format2.snapshot',
        'sandbox.log.lock',
      ]);
      // the tokens, the balance and the hash tokens handed out before still hold; revoked ones do not
      expect(await merchantGhs(first, expected.tokens[1])).toBe(expected.ghs);
      expect((await call(first, 'merchant/currencies', undefined, 'not-a-token')).status).toBe(401);
      const done = await call(
        first,
        'payments/processed',
        { hash_token: expected.d1, phone_number: '+233201234567' },
        expected.tokens[0],
      );
      expect(done.status).toBe(200);
      expect(done.json.data.uuid).toBe(expected.transactions[0].uuid);
      // the reference is still taken, and the next id follows the last
      const dup = await call(
        first,
        'payments/initiate',
        { customer_transaction_id: 'data-1' },
        expected.tokens[0],
      );
      expect(dup.json.errors.customer_transaction_id).toBeDefined();
      await initiate(first, expected.tokens[0], 'deposit', { customer_transaction_id: 'after-import' });
      expect(first.state.list().at(-1)!.id).toBe(expected.transactions.at(-1).id + 1);
    } finally {
      await first.close();
    }
    const second = await sandbox({ dataFile: file });
    await second.close();
    expect(second.logs.filter((l) => l.startsWith('converted'))).toEqual([]);
    expect(second.state.list()).toHaveLength(9);
    expect(readFileSync(`${file}.format2`).equals(log)).toBe(true);
  });

  it('a cut last line of a format 2 log is left out, and said', async () => {
    const dir = tempDir();
    cpSync(fixture, dir, { recursive: true });
    const file = join(dir, 'sandbox.log');
    const cut = '["t",8,9,0,"cut-ref","Am';
    writeFileSync(file, readFileSync(file, 'utf8') + cut);
    const sb = await sandbox({ dataFile: file });
    await sb.close();
    expect(sb.state.list().map((t) => t.reference)).not.toContain('cut-ref');
    expect(sb.state.list()).toHaveLength(8);
    expect(sb.logs).toContain(
      `${file}: its last line, cut by an interrupted write (${cut.length} bytes), was left out`,
    );
  });

  it('a file of the sandbox before the log (version 1) is converted on first start, its old file kept', async () => {
    const file = join(tempDir(), 'state.json');
    const tx = (id: number, over: Record<string, unknown>) => ({
      id,
      uuid: `0b6f7a1e-1c2d-4e5f-8a9b-00000000000${id}`,
      transaction_id: `TXNMIGRATED${id}`,
      hash_token: `${String(id).repeat(64)}`,
      kind: 'deposit',
      status: 'initiated',
      reference: `v1-${id}`,
      amount: 10,
      currency_code: 'GHS',
      country_code: 'GH',
      customer: { first_name: 'Kofi', phone: '+233201234567', email: 'k@example.com' },
      created_at: '2026-11-20T10:00:00.000Z',
      ...over,
    });
    const v1 = {
      version: 1,
      seq: 2,
      tokens: ['v1-token'],
      transactions: [
        tx(1, {}),
        tx(2, {
          kind: 'withdraw',
          status: 'pending',
          gateway_id: 3,
          otp_sent: true,
          paid: true,
          processed_at: '2026-11-20T10:05:00.000Z',
        }),
      ],
      balances: { GHS: 777.5 },
    };
    const text = JSON.stringify(v1);
    writeFileSync(file, text);
    const first = await sandbox({ dataFile: file });
    try {
      expect(first.logs).toContain(
        `converted ${file} to an SQLite database (2 transactions; the old file kept as ${file}.format1)`,
      );
      expect(first.state.list()).toEqual(v1.transactions);
      expect(readFileSync(`${file}.format1`, 'utf8')).toBe(text);
      expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
      expect(await merchantGhs(first, 'v1-token')).toBe(777.5);
      const r = await call(
        first,
        'payments/processed',
        { hash_token: '1'.repeat(64), phone_number: '+233201234567' },
        'v1-token',
      );
      expect(r.status).toBe(200);
      expect(r.json.data.uuid).toBe(v1.transactions[0]!.uuid);
      await initiate(first, 'v1-token', 'deposit');
    } finally {
      await first.close();
    }
    const second = await sandbox({ dataFile: file });
    try {
      expect(second.logs.filter((l) => l.startsWith('converted'))).toEqual([]);
      const list = second.state.list();
      expect(list.map((t) => [t.id, t.status])).toEqual([
        [1, 'pending'],
        [2, 'pending'],
        [3, 'initiated'],
      ]);
      expect(list.map((t) => t.hash_token.slice(0, 12)).slice(0, 2)).toEqual([
        '1'.repeat(12),
        '2'.repeat(12),
      ]);
      expect(list[2]!.hash_token).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await second.close();
    }
  });

  // A start reads the number of transactions from one row (counting the table took 1.5 s at 1,000,000 rows
  // off a cold disk): kept by the database itself, so rows another SQLite tool adds or removes count, and
  // a file made before it was kept is counted once at its first start.
  it('the number of transactions a start reports holds for rows the sandbox, another SQLite tool and a file made before the count wrote', async () => {
    const file = join(tempDir(), 'sandbox.db');
    const sql = (fn: (db: Database.Database) => void) => {
      const db = new Database(file);
      fn(db);
      db.close();
    };
    const first = await sandbox({ dataFile: file });
    const token = await tokenOf(first);
    for (const ref of ['n-1', 'n-2', 'n-3'])
      await initiate(first, token, 'deposit', { customer_transaction_id: ref });
    await first.close();
    // another tool: a row added as the sandbox writes one, and one removed
    sql((db) => {
      db.prepare(
        `INSERT INTO tx(hash_token, uuid, transaction_id, kind, status, reference, amount, currency_code,
           country_code, first_name, phone, email, created_at) SELECT 'f'||hash_token, uuid, 'X'||transaction_id,
           kind, status, 'by-sql', amount, currency_code, country_code, first_name, phone, email, created_at
           FROM tx WHERE reference = 'n-1'`,
      ).run();
      db.prepare("DELETE FROM tx WHERE reference = 'n-2'").run();
    });
    const second = await sandbox({ dataFile: file });
    await second.close();
    expect(second.state.dataStart).toEqual({ fresh: false, transactions: 3 });
    expect(second.state.list().map((t) => t.reference)).toEqual(['n-1', 'n-3', 'by-sql']);
    // a file of this format made before the count was kept: no row, no triggers
    sql((db) =>
      db.exec("DROP TRIGGER tx_added; DROP TRIGGER tx_removed; DELETE FROM meta WHERE key = 'transactions'"),
    );
    const third = await sandbox({ dataFile: file });
    try {
      expect(third.state.dataStart).toEqual({ fresh: false, transactions: 3 });
      await initiate(third, token, 'deposit', { customer_transaction_id: 'n-4' });
      expect(third.state.size()).toBe(4);
      expect(third.state.list()).toHaveLength(4);
    } finally {
      await third.close();
    }
    sql((db) => db.prepare("DELETE FROM tx WHERE reference = 'n-1'").run());
    const fourth = await sandbox({ dataFile: file });
    await fourth.close();
    expect(fourth.state.dataStart).toEqual({ fresh: false, transactions: 3 });
  });
});
