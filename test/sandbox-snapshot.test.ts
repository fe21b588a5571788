// The snapshot beside the sandbox's data file (src/sandbox/snapshot.ts, state-snapshot.ts): a restart from
// it and the log after it holds what a restart from the log alone holds; a snapshot that is torn, damaged,
// of another version or of another log, or whose log changed before its place, is set aside with a
// warning and the whole log read; a kill -9 while a snapshot is written leaves the previous one in use.
// Real HTTP to real sandboxes; the kill is of a real `mpay sandbox` process.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox, tempDir, waitUntil } from './helpers.js';
import { call, fill, initiate, merchantGhs, tokenOf } from './sandbox-calls.js';
import { demoMerchant } from '../src/sandbox/seed.js';
import { refHash } from '../src/sandbox/ref-index.js';

type Sb = Awaited<ReturnType<typeof sandbox>>;

const snapshotNow = async (sb: { url: string }, body: Record<string, unknown> = {}) =>
  (
    await fetch(`${sb.url}/_sandbox/snapshot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json();

/** The files a kill -9 would leave at this moment, copied into a folder of their own: the log there. */
function copyOut(file: string, to: string, withSnapshot: boolean): string {
  mkdirSync(to);
  copyFileSync(file, join(to, 'sandbox.log'));
  if (withSnapshot) copyFileSync(`${file}.snapshot`, join(to, 'sandbox.log.snapshot'));
  return join(to, 'sandbox.log');
}

const readLine = (sb: Sb) => sb.logs.find((l) => l.startsWith('read '));
const setAside = (sb: Sb) => sb.logs.filter((l) => l.startsWith('set aside'));

/** What a client sees of a sandbox's holdings: every transaction, a token's and the GHS balance. */
async function holdings(sb: Sb, token: string) {
  return {
    list: sb.state.list(),
    balance: await merchantGhs(sb, token),
    authorised: (await call(sb, 'merchant/currencies', undefined, token)).status,
  };
}

/** Whether an initiate with reference `ref` is refused because the reference is taken. */
async function refusedAsTaken(sb: Sb, token: string, ref: string): Promise<boolean> {
  const r = await call(
    sb,
    'payments/initiate',
    {
      merchant_key: demoMerchant.merchantKey,
      site_id: 1,
      api_key: demoMerchant.apiKey,
      currency_code: 'GHS',
      country_code: 'GH',
      customer_first_name: 'Ama',
      customer_phone: '+233201234567',
      customer_email: 'ama@example.com',
      customer_transaction_id: ref,
      amount: '12.50',
    },
    token,
  );
  return (
    r.status === 422 &&
    JSON.stringify(r.json.errors.customer_transaction_id) ===
      JSON.stringify(['The customer transaction id has already been taken.'])
  );
}

// The tests share nothing (each its own folder and sandboxes) and run at once.
describe('the sandbox snapshot', { concurrent: true }, () => {
  it('a restart from the snapshot and the log after it holds what a restart from the log alone holds', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    let before;
    let token = '';
    let taken = '';
    try {
      const { fresh, d1 } = await fill(first);
      token = fresh;
      expect(await snapshotNow(first)).toEqual({ written: true });
      // After the snapshot: a new transaction, a change of one it holds, a token revoked and one issued.
      const d = await initiate(first, fresh, 'deposit', { customer_transaction_id: 'after-the-snapshot' });
      taken = 'after-the-snapshot';
      const st = { hash_token: d.hash, status: 'failed', gateway_id: d.gateway };
      expect((await call(first, 'payments/status/update', st, fresh)).status).toBe(200);
      const done = { hash_token: d1.hash, phone_number: '+233201234567' };
      expect((await call(first, 'payments/processed', done, fresh)).status).toBe(200);
      expect((await fetch(`${first.url}/_sandbox/revoke-tokens`, { method: 'POST' })).status).toBe(200);
      token = await tokenOf(first);
      await first.state.synced();
      before = await holdings(first, token);
      copyOut(file, join(dir, 'snap'), true);
      copyOut(file, join(dir, 'log'), false);
    } finally {
      await first.close();
    }
    const fromSnapshot = await sandbox({ dataFile: join(dir, 'snap', 'sandbox.log') });
    const fromLog = await sandbox({ dataFile: join(dir, 'log', 'sandbox.log') });
    try {
      const tail =
        /: 7 transactions, from its snapshot \([\d.]+ MB\) and the (\d+) lines of the log after it/.exec(
          readLine(fromSnapshot) ?? '',
        );
      expect(Number(tail?.[1])).toBe(5); // initiate, status update, processed, revocation, token
      expect(readLine(fromLog)).toMatch(/: 7 transactions, \d+ lines, in/);
      expect(setAside(fromSnapshot)).toEqual([]);
      expect(before!.list.at(-1)!.status).toBe('failed');
      expect(await holdings(fromSnapshot, token)).toEqual(before);
      expect(await holdings(fromLog, token)).toEqual(before);
      // Every reference is still taken (the index came back), and the next transaction is the same one.
      for (const sb of [fromSnapshot, fromLog]) expect(await refusedAsTaken(sb, token, taken)).toBe(true);
      const next = await Promise.all([fromSnapshot, fromLog].map((sb) => initiate(sb, token, 'deposit')));
      expect(next[0]!.hash).toBe(next[1]!.hash);
      const [a, b] = [fromSnapshot, fromLog].map((sb) => sb.state.list().at(-1)!);
      expect([a!.id, a!.uuid]).toEqual([b!.id, b!.uuid]);
      expect(a!.id).toBe(before!.list.at(-1)!.id + 1);
    } finally {
      await fromSnapshot.close();
      await fromLog.close();
    }
  });

  it('a snapshot torn, damaged, of another version, of another log, or of a log changed since is set aside and the whole log read', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    for (let i = 0; i < 4; i++) await initiate(first, t, 'deposit', { customer_transaction_id: `kept-${i}` });
    const before = first.state.list();
    await first.close();
    const other = join(dir, 'other.log');
    const another = await sandbox({ dataFile: other });
    await initiate(another, await tokenOf(another), 'deposit');
    await another.close();

    const snap = readFileSync(`${file}.snapshot`);
    // the hash of a reference, in the column a start reads (the others are read after it)
    const hash = Buffer.alloc(4);
    hash.writeUInt32LE(refHash('kept-2'));
    const hashAt = snap.indexOf(hash);
    expect(hashAt).toBeGreaterThan(0);
    const changed = Buffer.from(snap);
    changed[hashAt] = changed[hashAt]! ^ 1;
    const described = Buffer.from(snap);
    described[described.length - 2] = described[described.length - 2]! ^ 1;
    const version = Buffer.from(snap);
    version.writeUInt32LE(9, 8);
    const log = readFileSync(file, 'utf8');
    const cases: [string, Buffer, string, RegExp][] = [
      ['torn', snap.subarray(0, snap.length >> 1), log, /\(torn\)/],
      [
        'a byte changed',
        changed,
        log,
        /its section 8 \(bytes \d+ to \d+\) does not match its checksum \(damaged\)/,
      ],
      ['its description changed', described, log, /its description does not match its checksum \(damaged\)/],
      ['another version', version, log, /it is of version 9 \(this mpay reads 2\)/],
      ['not one', Buffer.from('{"not":"a snapshot"}'), log, /it is not a snapshot of the sandbox/],
      ['of another log', readFileSync(`${other}.snapshot`), log, /it was written for another log/],
      [
        'a log changed before its place',
        snap,
        log.replace('"kept-3"', '"kept-Z"'),
        /the log's bytes before byte \d+, where it stands, are not the ones it was written after/,
      ],
    ];
    for (const [what, bytes, text, reason] of cases) {
      const f = join(dir, `${what.replace(/ /g, '-')}.log`);
      writeFileSync(f, text);
      writeFileSync(`${f}.snapshot`, bytes);
      const sb = await sandbox({ dataFile: f });
      try {
        expect(setAside(sb), what).toEqual([
          expect.stringMatching(
            new RegExp(`^set aside the snapshot ${f}\\.snapshot: .*; reading the whole log$`),
          ),
        ]);
        expect(setAside(sb)[0], what).toMatch(reason);
        expect(readLine(sb), what).toMatch(/: 4 transactions, 6 lines, in/);
        const expected =
          text === log ? before : before.map((x, i) => (i === 3 ? { ...x, reference: 'kept-Z' } : x));
        expect(sb.state.list(), what).toEqual(expected);
      } finally {
        await sb.close();
      }
      // Its shutdown wrote a snapshot of its own, which the next start uses.
      const again = await sandbox({ dataFile: f });
      await again.close();
      expect(setAside(again), what).toEqual([]);
      expect(readLine(again), what).toMatch(/from its snapshot .* and the 0 lines of the log after it/);
    }
  });

  it('a snapshot damaged where a start leaves it to read later is set aside once read, and the whole log read again', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    for (let i = 0; i < 4; i++) await initiate(first, t, 'deposit', { customer_transaction_id: `kept-${i}` });
    const before = first.state.list();
    await first.close();
    const snap = readFileSync(`${file}.snapshot`);
    const at = snap.indexOf('kept-2'); // in a text slab
    expect(at).toBeGreaterThan(0);
    snap.write('X', at + 5);
    writeFileSync(`${file}.snapshot`, snap);

    const sb = await sandbox({ dataFile: file });
    try {
      // the start used it: what it read of it was whole
      expect(readLine(sb)).toMatch(/: 4 transactions, from its snapshot/);
      await waitUntil(
        'the whole log read again',
        () => sb.logs.filter((l) => l.startsWith('read ')).length > 1,
      );
      expect(setAside(sb)).toEqual([
        expect.stringMatching(
          /^set aside the snapshot .*\.snapshot: its section \d+ \(bytes \d+ to \d+\) does not match its checksum \(damaged\); reading the whole log$/,
        ),
      ]);
      expect(sb.logs.filter((l) => l.startsWith('read ')).at(-1)).toMatch(/: 4 transactions, 6 lines, in/);
      expect(sb.state.list()).toEqual(before);
      await waitUntil('a new snapshot', () => sb.logs.some((l) => l.startsWith(`snapshot ${file}.snapshot`)));
    } finally {
      await sb.close();
    }
    const again = await sandbox({ dataFile: file });
    try {
      expect(setAside(again)).toEqual([]);
      expect(readLine(again)).toMatch(
        /: 4 transactions, from its snapshot .* and the 0 lines of the log after it/,
      );
      expect(again.state.list()).toEqual(before);
    } finally {
      await again.close();
    }
  });

  it('changes made before what a start left of the snapshot is read are kept once it is', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    const old = await initiate(first, t, 'deposit', { customer_transaction_id: 'before-the-restart' });
    await first.close();
    // each section read when first needed, not in the background
    const sb = await sandbox({ dataFile: file, snapshot: { readLater: false } });
    try {
      const t2 = await tokenOf(sb);
      // a new transaction (written into the columns not read yet), then a change of the old one
      const d = await initiate(sb, t2, 'withdraw', { customer_transaction_id: 'after-the-restart' });
      const st = { hash_token: old.hash, status: 'failed', gateway_id: old.gateway };
      expect((await call(sb, 'payments/status/update', st, t2)).status).toBe(200);
      expect(await refusedAsTaken(sb, t2, 'before-the-restart')).toBe(true);
      expect(await refusedAsTaken(sb, t2, 'after-the-restart')).toBe(true);
      const list = sb.state.list();
      expect(list.map((x) => [x.reference, x.kind, x.status])).toEqual([
        ['before-the-restart', 'deposit', 'failed'],
        ['after-the-restart', 'withdraw', 'initiated'],
      ]);
      expect(list[1]!.hash_token).toBe(d.hash);
      expect(list[1]!.id).toBe(list[0]!.id + 1);
    } finally {
      await sb.close();
    }
  });

  it('a snapshot holds the state at the place of the log it names, with the changes made while it waited for the log', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const sb = await sandbox({ dataFile: file, snapshot: { everyLines: 1e9 } });
    let copy = '';
    try {
      await initiate(sb, await tokenOf(sb), 'deposit');
      await sb.state.synced();
      // A change not yet written (a token), a snapshot asked for, which waits for it to be synced, and
      // meanwhile another change (an initiate): the snapshot is taken once both are in the log.
      sb.state.generateToken({ merchant_key: demoMerchant.merchantKey });
      const written = sb.state.snapshot();
      const body = {
        merchant_key: demoMerchant.merchantKey,
        site_id: 1,
        api_key: demoMerchant.apiKey,
        currency_code: 'GHS',
        country_code: 'GH',
        customer_first_name: 'Ama',
        customer_phone: '+233201234567',
        customer_email: 'ama@example.com',
        customer_transaction_id: 'while-it-waits',
        amount: '12.50',
      };
      expect(sb.state.initiate('deposit', body).status).toBe(200);
      expect(await written).toBe(true);
      await sb.state.synced();
      copy = copyOut(file, join(dir, 'copy'), true);
    } finally {
      await sb.close();
    }
    // Its description names the place it stands in the log: the end of the log, which holds both changes.
    const snap = readFileSync(`${copy}.snapshot`);
    const meta = JSON.parse(snap.subarray(snap.length - snap.readUInt32LE(12)).toString('utf8'));
    expect(meta.offset).toBe(readFileSync(copy).length);
    expect(meta.store.n).toBe(2);
    const again = await sandbox({ dataFile: copy });
    try {
      expect(readLine(again)).toMatch(
        /: 2 transactions, from its snapshot .* and the 0 lines of the log after it/,
      );
      expect(again.state.list().at(-1)!.reference).toBe('while-it-waits');
    } finally {
      await again.close();
    }
  });

  it('snapshots are written every so many lines, and after a compaction', async () => {
    const dir = tempDir();
    const written = (logs: string[], file: string, n: number) =>
      logs.some((l) => l.startsWith(`snapshot ${file}.snapshot: ${n} transactions`));
    const everyFive = join(dir, 'every-five.log');
    const logs: string[] = [];
    const sb = await sandbox({ dataFile: everyFive, snapshot: { everyLines: 5 }, log: (l) => logs.push(l) });
    try {
      const t = await tokenOf(sb);
      for (let i = 0; i < 3; i++) await initiate(sb, t, 'deposit');
      expect(logs.filter((l) => l.startsWith('snapshot'))).toEqual([]);
      await initiate(sb, t, 'deposit'); // the fifth line
      await waitUntil('a snapshot after 5 lines', () => written(logs, everyFive, 4));
    } finally {
      await sb.close();
    }

    const compacted = join(dir, 'compacted.log');
    const logs2: string[] = [];
    const sb2 = await sandbox({
      dataFile: compacted,
      snapshot: { everyLines: 1e9 },
      compactSlack: 10,
      log: (l) => logs2.push(l),
    });
    try {
      const t = await tokenOf(sb2);
      const d = await initiate(sb2, t, 'deposit');
      const wallet = { hash_token: d.hash, gateway_id: d.gateway };
      const done = () => logs2.some((l) => l.startsWith(`compacted ${compacted}`));
      for (let i = 0; i < 500 && !done(); i++) {
        expect((await call(sb2, 'payments/crypto/wallet/address/update', wallet, t)).status).toBe(200);
        await sb2.state.synced();
      }
      expect(done()).toBe(true);
      await waitUntil('a snapshot after the compaction', () => written(logs2, compacted, 1));
    } finally {
      await sb2.close();
    }
  });
});
