// The sandbox's data file (--data, src/sandbox/tx-store.ts: an SQLite database): a restart keeps every
// transaction in its state, tokens and balances; a damaged or foreign file where the database should be is
// refused (exit 9, the file named, left as it was); a data file of the formats before SQLite (format 2, a
// log; version 1, one JSON object) is imported at its first start, the old file kept beside it. Real HTTP
// to a real sandbox.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { noStack, run, sandbox, tempDir } from './helpers.js';
import { initiate, tokenOf } from './sandbox-calls.js';
import { mpay } from './in-process.js';

// The tests share nothing (each its own folder and sandboxes) and run at once.
describe('the sandbox data file', { concurrent: true }, () => {
  it('a damaged or foreign file where the database should be is refused (exit 9, the file and the mend named), left as it was, nothing written beside it', async () => {
    const dir = tempDir();
    const ours = join(dir, 'ours.db');
    const sb = await sandbox({ dataFile: ours });
    await initiate(sb, await tokenOf(sb), 'deposit');
    await sb.close();
    const db = readFileSync(ours);
    const foreign = join(dir, 'made.db');
    const other = new Database(foreign);
    other.exec('CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES (1)');
    other.close();
    const damaged = Buffer.from(db);
    damaged.fill(0x5a, 100, 4096 * 2);
    const cases: [string, Buffer, RegExp][] = [
      ['damaged', damaged, /not a database, or a damaged one/],
      ['foreign', readFileSync(foreign), /an SQLite database, but not the sandbox's/],
      ['newer', Buffer.alloc(0), /a sandbox database of format 4, which this mpay does not read/],
      ['garbage', Buffer.from('x%$#garbage\n'), /not a sandbox data file, nor a database/],
      ['another version', Buffer.from('{"version":7,"transactions":[]}'), /a sandbox data file of version 7/],
      ['another format', Buffer.from('{"mpay_sandbox":9}\n'), /a sandbox data file of format 9/],
      ['binary', Buffer.from('\u0000\u0001binary\n\u00ff'), /not a sandbox data file/],
      [
        'an old file breaking a rule',
        Buffer.from(
          JSON.stringify({
            version: 1,
            seq: 2,
            tokens: [],
            balances: {},
            transactions: [1, 2].map((id) => ({
              ...{ id, uuid: `u${id}`, transaction_id: `t${id}`, hash_token: `h${id}`, kind: 'deposit' },
              ...{ status: 'initiated', reference: 'twice', amount: 1, currency_code: 'GHS' },
              ...{ country_code: 'GH', created_at: '2026-11-20T10:00:00.000Z' },
              customer: { first_name: 'A', phone: '+233201234567', email: 'a@example.com' },
            })),
          }),
        ),
        /cannot be imported: UNIQUE constraint failed: tx.reference/,
      ],
    ];
    for (const [i, [what, bytes, message]] of cases.entries()) {
      const d = join(dir, String(i));
      const f = join(d, 'sandbox.db');
      mkdirSync(d);
      if (what === 'newer') {
        cpSync(ours, f);
        const n = new Database(f);
        n.exec("UPDATE meta SET value = 4 WHERE key = 'mpay_sandbox'");
        n.close();
      } else writeFileSync(f, bytes);
      const before = readFileSync(f);
      await expect(sandbox({ dataFile: f }), what).rejects.toThrow(message);
      expect(readFileSync(f).equals(before), `${what}: left as it was`).toBe(true);
      // mpay sandbox says it with the file's name and the mend, and exits with the code of a local file:
      // the process's own exit code once, the command in-process for the others.
      const argv = ['sandbox', '--port', '0', '--data', f];
      const r = i === 0 ? await run(argv) : await mpay(argv);
      expect(r.code, what).toBe(9);
      expect(r.stderr, what).toContain(`data file cannot be read: ${f}: `);
      expect(r.stderr, what).toMatch(message);
      expect(r.stderr, what).toContain(`Move it aside (mv ${f} ${f}.aside`);
      expect(noStack(r.stderr), what).toBe(true);
      expect(readFileSync(f).equals(before), `${what}: left as it was`).toBe(true);
      expect(
        readdirSync(d).filter((n) => n.startsWith('sandbox.db')),
        what,
      ).toEqual(['sandbox.db']);
    }
  }, 120_000);
});
