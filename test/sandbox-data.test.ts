// The sandbox's data file (--data, src/sandbox/data-log.ts): a restart keeps every transaction in its
// state, tokens and balances; a cut last line is recovered; garbage, a file of another version and a file
// that is not one are errors that name the place; a file of the sandbox before the log (version 1) is
// converted; compaction, also while requests arrive, keeps the state. Real HTTP to a real sandbox.
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noStack, run, sandbox, tempDir } from './helpers.js';
import { call, fill, initiate, merchantGhs, tokenOf } from './sandbox-calls.js';
import { mpay } from './in-process.js';
import { LogBehindSnapshotError } from '../src/sandbox/state-file.js';

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

  it('garbage, a file of another version and a file that is not one are errors naming the place', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    await initiate(first, t, 'deposit');
    await first.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    const cases: [string, string, RegExp][] = [
      [
        'garbage inside',
        [lines[0], lines[1], 'x%$#garbage', ...lines.slice(2)].join('\n'),
        /line 3 \(byte \d+\): not a record \(damaged or not JSON\)/,
      ],
      [
        'garbage last',
        `${lines.join('\n')}{"no":"record"}\n`,
        new RegExp(`line ${lines.length} \\(byte \\d+\\): not a record of the sandbox`),
      ],
      [
        'a change of nothing',
        `${lines.join('\n')}["u",9,"pending",null,null,0,0,null]\n`,
        /a change of transaction 9, which is not there/,
      ],
      [
        'another format',
        lines.join('\n').replace('"mpay_sandbox":2', '"mpay_sandbox":3'),
        /line 1 \(byte 0\): a sandbox data file of format 3, which this mpay does not read/,
      ],
      [
        'another version',
        '{"version":7,"transactions":[]}',
        /line 1 \(byte 0\): a sandbox data file of version 7/,
      ],
      ['not one', '\u0000\u0001binary\n\u00ff', /line 1 \(byte 0\): not a sandbox data file/],
    ];
    for (const [i, [what, text, message]] of cases.entries()) {
      const f = join(dir, `${what.replace(/ /g, '-')}.log`);
      writeFileSync(f, text);
      await expect(sandbox({ dataFile: f }), what).rejects.toThrow(message);
      expect(readFileSync(f, 'utf8'), `${what}: left as it was`).toBe(text);
      // mpay sandbox says it in one line, with the file's name, and exits with the code of a local file:
      // the process's own exit code once, the command in-process for the others.
      const argv = ['sandbox', '--port', '0', '--data', f];
      const r = i === 0 ? await run(argv) : await mpay(argv);
      expect(r.code, what).toBe(9);
      expect(r.stderr).toContain(f);
      expect(r.stderr).toMatch(message);
      expect(noStack(r.stderr)).toBe(true);
    }
  }, 120_000);

  it('a log that does not reach the place its snapshot covers (cut, emptied, deleted) is refused, naming both files, and nothing is written', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    for (let i = 0; i < 3; i++) await initiate(first, t, 'deposit');
    const all = first.state.list();
    // its shutdown writes the snapshot, which covers the whole log
    await first.close();
    const log = readFileSync(file);
    const snap = readFileSync(`${file}.snapshot`);
    const lastLine = log.lastIndexOf(10, log.length - 2) + 1;
    const cases: [string, Buffer | undefined, RegExp][] = [
      ['cut before its last line', log.subarray(0, lastLine), new RegExp(`ends at byte ${lastLine},`)],
      [
        'cut inside its last line',
        log.subarray(0, lastLine + 5),
        new RegExp(`ends at byte ${lastLine + 5},`),
      ],
      ['emptied', Buffer.alloc(0), /is empty \(0 bytes\)/],
      ['deleted', undefined, /is missing/],
    ];
    for (const [i, [what, bytes, state]] of cases.entries()) {
      const d = join(dir, String(i));
      mkdirSync(d);
      const f = join(d, 'sandbox.log');
      if (bytes) writeFileSync(f, bytes);
      writeFileSync(`${f}.snapshot`, snap);
      let err: unknown;
      try {
        await (await sandbox({ dataFile: f })).close();
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(LogBehindSnapshotError);
      const { message, hint } = err as LogBehindSnapshotError;
      expect(message, what).toMatch(state);
      expect(message, what).toContain(`${f} `);
      expect(message, what).toContain(`${f}.snapshot`);
      if (bytes?.length) expect(message, what).toContain(`before byte ${log.length}, where its snapshot`);
      expect(hint, what).toMatch(/Put the whole log back .*or.* move the snapshot aside/);
      // nothing written: the snapshot and the log as they were, no log made, no lock left
      expect(readFileSync(`${f}.snapshot`).equals(snap), what).toBe(true);
      if (bytes) expect(readFileSync(f).equals(bytes), what).toBe(true);
      expect(readdirSync(d).sort(), what).toEqual(
        bytes ? ['sandbox.log', 'sandbox.log.snapshot'] : ['sandbox.log.snapshot'],
      );
      // mpay sandbox: exit 9, both files and the mend named, no stack
      const argv = ['sandbox', '--port', '0', '--data', f];
      const r = i === 0 ? await run(argv) : await mpay(argv);
      expect(r.code, what).toBe(9);
      expect(r.stderr, what).toContain(`${f}.snapshot`);
      expect(r.stderr, what).toMatch(/move the snapshot aside: mv /);
      expect(noStack(r.stderr), what).toBe(true);
      expect(readFileSync(`${f}.snapshot`).equals(snap), what).toBe(true);
    }
    // The mends the hint names: the snapshot moved aside starts from the cut log alone; the whole log put
    // back starts from the snapshot, with every transaction.
    const cut = join(dir, '0', 'sandbox.log');
    renameSync(`${cut}.snapshot`, `${cut}.snapshot.aside`);
    const fromLog = await sandbox({ dataFile: cut });
    await fromLog.close();
    expect(fromLog.state.list()).toEqual(all.slice(0, -1));
    const emptied = join(dir, '2', 'sandbox.log');
    writeFileSync(emptied, log);
    const restored = await sandbox({ dataFile: emptied });
    await restored.close();
    expect(restored.state.list()).toEqual(all);
    expect(restored.logs.find((l) => l.startsWith('read '))).toMatch(/from its snapshot/);
  }, 120_000);

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
    // (Kept minimal: the sandbox's storage is being replaced, and its tests with it.)
    const file = join(tempDir(), 'sandbox.log');
    const first = await sandbox({ dataFile: file, compactSlack: 40 });
    const t = await tokenOf(first);
    // Each wallet update after the first is a line the state does not need. Eight clients send wallet
    // updates and initiates, each its next as soon as its last is answered, until the compaction is over:
    // requests are in flight all along, so that some land while it swaps the files. One request in three
    // is an initiate: a line lost then is a transaction missing from the state read back.
    const firsts = await Promise.all(Array.from({ length: 20 }, () => initiate(first, t, 'deposit')));
    const answered = firsts.map((d) => d.hash);
    let updates = 0;
    let sent = 0;
    const compacted = () => first.logs.some((l) => l.startsWith(`compacted ${file}`));
    const client = async (c: number) => {
      for (let i = 0; !compacted(); i++) {
        if (++sent > 20_000) throw new Error('no compaction after 20,000 requests');
        if (i % 3 === 2) {
          answered.push((await initiate(first, t, 'deposit')).hash);
          continue;
        }
        const d = firsts[(c * 7 + i) % 20]!;
        const r = await call(
          first,
          'payments/crypto/wallet/address/update',
          { hash_token: d.hash, gateway_id: d.gateway },
          t,
        );
        expect(r.status).toBe(200);
        updates++;
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, c) => client(c)));
    const token = await tokenOf(first);
    const before = first.state.list();
    // every initiate answered is in the state, once
    expect(before.map((x) => x.hash_token).sort()).toEqual([...answered].sort());
    await first.state.synced();
    await first.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    // header, two tokens, the initiates and the wallet updates: the lines without compaction
    expect(lines.length).toBeLessThan(1 + 2 + answered.length + updates);
    // read back from the log alone: the snapshot written at close would hold the state whatever the log lost
    rmSync(`${file}.snapshot`, { force: true });
    const second = await sandbox({ dataFile: file });
    try {
      expect(second.state.list()).toEqual(before);
      expect((await call(second, 'merchant/currencies', undefined, token)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
