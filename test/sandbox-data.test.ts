// The sandbox's data file (--data, src/sandbox/data-log.ts): a restart keeps every transaction in its
// state, tokens and balances; a cut last line is recovered; garbage, a file of another version and a file
// that is not one are errors that name the place; a file of the sandbox before the log (version 1) is
// converted; compaction, also while requests arrive, keeps the state. Real HTTP to a real sandbox.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox, tempDir } from './helpers.js';
import { call, fill, initiate, merchantGhs, tokenOf } from './sandbox-calls.js';

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

  it('a cut last line is dropped, said, and the file cut back; a whole last line without its newline is kept', async () => {
    const file = join(tempDir(), 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    for (let i = 0; i < 3; i++) await initiate(first, t, 'deposit');
    const before = first.state.list();
    await first.close();
    const whole = readFileSync(file, 'utf8');
    const cut = '["t",3,4,0,"cut-ref","Am';
    appendFileSync(file, cut);
    const second = await sandbox({ dataFile: file });
    await second.close();
    expect(second.state.list()).toEqual(before);
    expect(second.logs.find((l) => l.startsWith('recovered'))).toMatch(
      new RegExp(
        `line ${whole.split('\n').length} \\(byte ${Buffer.byteLength(whole)}\\), cut by an interrupted write \\(${cut.length} bytes\\), was dropped`,
      ),
    );
    expect(readFileSync(file, 'utf8')).toBe(whole);

    appendFileSync(file, '["k","tok-written-by-hand"]');
    const third = await sandbox({ dataFile: file });
    try {
      expect(third.logs.filter((l) => l.startsWith('recovered'))).toEqual([]);
      expect((await call(third, 'merchant/currencies', undefined, 'tok-written-by-hand')).status).toBe(200);
    } finally {
      await third.close();
    }
    expect(readFileSync(file, 'utf8')).toBe(`${whole}["k","tok-written-by-hand"]\n`);
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
      expect(first.logs.find((l) => l.startsWith('converted'))).toMatch(
        /from version 1 to format 2 \(2 transactions; the old file kept as .*state\.json\.v1\)/,
      );
      expect(first.state.list()).toEqual(v1.transactions);
      expect(readFileSync(`${file}.v1`, 'utf8')).toBe(text);
      expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!).mpay_sandbox).toBe(2);
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
      expect(list.map((t) => t.hash_token.slice(0, 12))).toEqual([
        '1'.repeat(12),
        '2'.repeat(12),
        '000000000002',
      ]);
    } finally {
      await second.close();
    }
  });

  it('compaction, while requests arrive, keeps the state and shortens the file', async () => {
    const file = join(tempDir(), 'sandbox.log');
    const first = await sandbox({ dataFile: file, compactSlack: 40 });
    const t = await tokenOf(first);
    // Each wallet update after the first is a line the state does not need; initiates go on while the
    // file is compacted.
    const firsts = await Promise.all(Array.from({ length: 20 }, () => initiate(first, t, 'deposit')));
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      const d = firsts[i % 20]!;
      work.push(
        call(
          first,
          'payments/crypto/wallet/address/update',
          { hash_token: d.hash, gateway_id: d.gateway },
          t,
        ).then((r) => expect(r.status).toBe(200)),
      );
      if (i % 5 === 0) work.push(initiate(first, t, 'deposit'));
    }
    await Promise.all(work);
    const token = await tokenOf(first);
    const before = first.state.list();
    expect(before).toHaveLength(60);
    await first.state.synced();
    expect(first.logs.some((l) => l.startsWith(`compacted ${file}`))).toBe(true);
    await first.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    // header, token, 60 initiates, 200 wallet updates, token: 263 lines without compaction
    expect(lines.length).toBeLessThan(263);
    const second = await sandbox({ dataFile: file });
    try {
      expect(second.state.list()).toEqual(before);
      expect((await call(second, 'merchant/currencies', undefined, token)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
