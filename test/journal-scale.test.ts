// The journal's index (issue: a journal that grows). Journals of thousands of synthetic transactions,
// written as today's mpay writes them (scripts/journal-synth.js: two seeds, two places, lines without a
// place, withdrawals with codes), are read through the index and compared with a plain read of every
// line; the index is damaged in each way a crash or a hand can damage it, and must be rebuilt or passed
// over, never believed; and the CLI, on a journal of an mpay without the index, lists newest first and
// builds the index on its first read.
import {
  appendFileSync,
  rmSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeJournal } from '../scripts/journal-synth.js';
import { Journal } from '../src/journal/journal.js';
import { foldRecords, isEvent, type JournalEvent, type JournalRecord } from '../src/journal/records.js';
import { tempDir } from './helpers.js';
import { mpay } from './in-process.js';

// Thousands of lookups a test, each of them reading the files as a process would: seconds of CPU that a
// machine busy with other work stretches, so the deadline of these tests allows for it.
const cpuBound = { timeout: 120_000 };

/** Every record of a log by a plain read of every line, and the references in the order they began. */
function plainRead(file: string): { byRef: Map<string, JournalRecord[]>; order: string[] } {
  const events: JournalEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const e: unknown = JSON.parse(line);
      if (isEvent(e)) events.push(e);
    } catch {
      // damaged: skipped, as mpay does
    }
  }
  const byRef = new Map<string, JournalRecord[]>();
  for (const r of foldRecords(events)) byRef.set(r.reference, [...(byRef.get(r.reference) ?? []), r]);
  return { byRef, order: [...new Set(events.map((e) => e.reference))] };
}

function journalAt(cfg: string, opts: { warn?: (m: string) => void } = {}) {
  return new Journal(cfg, 'default', 'sandbox', { indexFrom: 0, ...opts });
}

/** Checks a journal read through its index against the plain read, for every reference and hash token. */
function expectSame(j: Journal, file: string): void {
  const { byRef, order } = plainRead(file);
  for (const ref of order) {
    const records = byRef.get(ref)!;
    expect(j.recordsOf(ref), ref).toEqual(records);
    for (const r of records) if (r.hash_token) expect(j.recordsOf(r.hash_token)).toContainEqual(r);
  }
  // newest first, every record once
  const newest = [...j.newest()].map((r) => r.reference);
  expect(new Set(newest).size).toBe(order.length);
  expect([...new Set(newest)]).toEqual([...order].reverse());
}

describe('the index answers as a read of every line would', cpuBound, () => {
  for (const [seed, legacy] of [
    [7, 0.05],
    [11, 0.4],
  ] as const) {
    it(`seed ${seed}, ${legacy * 100}% of transactions without a place, damaged lines, appends after`, () => {
      const cfg = tempDir();
      const file = join(cfg, 'journal', 'default.sandbox.jsonl');
      writeJournal(file, { count: 1500, seed, legacy });
      appendFileSync(file, '{"torn": tr\nnot json at all\n');
      writeJournal(`${file}.more`, { count: 400, seed: seed + 1, legacy });
      const warnings: string[] = [];
      const j = journalAt(cfg, { warn: (m) => warnings.push(m) });
      expectSame(j, file);
      expect(existsSync(join(cfg, 'journal', 'index', 'default.sandbox.jsonl', 'state.json'))).toBe(true);
      expect(warnings.filter((w) => /damaged/.test(w))).toHaveLength(2);
      // Another process appends: a little (read from the log's tail) and then a lot (committed).
      const more = readFileSync(`${file}.more`, 'utf8').split('\n');
      appendFileSync(file, `${more.slice(0, 20).join('\n')}\n`);
      expectSame(j, file);
      appendFileSync(file, more.slice(20).join('\n'));
      expectSame(j, file);
      expectSame(journalAt(cfg), file); // a new process, from the committed index
    });
  }
});

describe('a damaged index is rebuilt or passed over, never believed', cpuBound, () => {
  function setUp() {
    const cfg = tempDir();
    const file = join(cfg, 'journal', 'default.sandbox.jsonl');
    writeJournal(file, { count: 800, seed: 3 });
    journalAt(cfg).recordsOf('x'); // builds the index
    const dir = join(cfg, 'journal', 'index', 'default.sandbox.jsonl');
    return { cfg, file, dir };
  }

  it('state.json that is not JSON, or of another file', () => {
    const { cfg, file, dir } = setUp();
    writeFileSync(join(dir, 'state.json'), '{"version": 1, "identity": "1:2", "of');
    expectSame(journalAt(cfg), file);
    const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
    expect(state.offset).toBeGreaterThan(0);
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ ...state, identity: '1:2' }));
    expectSame(journalAt(cfg), file);
  });

  it('shards whose offsets point at other lines', () => {
    const { cfg, file, dir } = setUp();
    for (const f of readdirSync(dir).filter((n) => n.startsWith('keys-'))) {
      const text = readFileSync(join(dir, f), 'utf8');
      // every offset moved to another line's: same length, so the committed sizes still match
      writeFileSync(
        join(dir, f),
        text.replace(/\t(\d)(\d*)\n/g, (_m, a: string, b: string) => `\t${(Number(a) + 1) % 10}${b}\n`),
      );
    }
    expectSame(journalAt(cfg), file);
  });

  it('a writer killed mid-append (bytes past the committed length) and a lock it left', () => {
    const { cfg, file, dir } = setUp();
    for (const f of readdirSync(dir).filter((n) => n.startsWith('keys-')))
      appendFileSync(join(dir, f), '"mpay-d-3-000001"\t1');
    appendFileSync(join(dir, 'firsts.bin'), Buffer.alloc(5, 7));
    mkdirSync(join(dir, 'write.lock'));
    // A fresh lock: this reader does not write the index, and reads what is past it from the log.
    writeJournal(`${file}.more`, { count: 300, seed: 4 });
    appendFileSync(file, readFileSync(`${file}.more`));
    expectSame(journalAt(cfg), file);
    // A lock a minute old is a killed writer's: taken over, and the bytes it left are cut off.
    utimesSync(join(dir, 'write.lock'), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    expectSame(journalAt(cfg), file);
    expect(existsSync(join(dir, 'write.lock'))).toBe(false);
    expectSame(journalAt(cfg), file);
  });

  it('firsts.bin garbled or cut, a shard cut short: rebuilt, and nothing hidden', () => {
    const { cfg, file, dir } = setUp();
    writeFileSync(join(dir, 'firsts.bin'), Buffer.alloc(5000, 9));
    expectSame(journalAt(cfg), file);
    const f = readFileSync(join(dir, 'firsts.bin'));
    f[16] = f[16]! ^ 0xff; // same length, another offset
    writeFileSync(join(dir, 'firsts.bin'), f);
    expectSame(journalAt(cfg), file);
    const [shard] = readdirSync(dir).filter((n) => n.startsWith('keys-'));
    writeFileSync(join(dir, shard!), readFileSync(join(dir, shard!)).subarray(0, 10));
    expectSame(journalAt(cfg), file);
    rmSync(join(dir, shard!));
    expectSame(journalAt(cfg), file);
  });

  it('a journal copied over in place (same file, other bytes): the index is of another journal', () => {
    const { cfg, file } = setUp();
    const other = join(tempDir(), 'other.jsonl');
    writeJournal(other, { count: 900, seed: 8 });
    writeFileSync(file, readFileSync(other)); // cp: same inode, new content, longer
    expectSame(journalAt(cfg), file);
  });

  it('a damaged last line past the index: lookups and newest pass over it', () => {
    const { cfg, file } = setUp();
    const warnings: string[] = [];
    const j = journalAt(cfg, { warn: (m) => warnings.push(m) });
    j.append({ reference: 'after-1', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    appendFileSync(file, '{"at":"2026-11-22T20:40:00.000Z","reference":"mpay-d-trunc');
    j.append({ reference: 'after-2', kind: 'deposit', step: 'initiate', outcome: 'sent' });
    expect(j.recordsOf('after-2')).toHaveLength(1);
    expect(j.recordsOf('after-1')).toHaveLength(1);
    expect([...j.newest()].slice(0, 2).map((r) => r.reference)).toEqual(['after-2', 'after-1']);
    expect(warnings.filter((w) => /damaged/.test(w))).toHaveLength(1);
  });

  it('a prune takes the removed transactions out of the index too', () => {
    const { cfg, file, dir } = setUp();
    const j = journalAt(cfg);
    const { order } = plainRead(file);
    const removed = j.prune((r) => r.reference === order[5]);
    expect(removed).toEqual([order[5]]);
    expect(j.recordsOf(order[5]!)).toEqual([]);
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'latin1')).not.toContain(order[5]);
    expectSame(journalAt(cfg), file);
  });

  it('holds no secret and no personal data: references, hash tokens and offsets only', () => {
    const { dir } = setUp();
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), 'latin1');
      for (const personal of ['@example.com', '+233', 'first_name', 'Kofi', 'amount', 'GHS', 'place'])
        expect(text, f).not.toContain(personal);
    }
  });
});

describe('the CLI on a journal an mpay without the index wrote', cpuBound, () => {
  it('history lists the newest 30 first, --limit and --all (JSON and CSV streamed) agree with the log', async () => {
    const cfg = tempDir();
    const file = join(cfg, 'journal', 'default.sandbox.jsonl');
    const { refs } = writeJournal(file, { count: 2500, seed: 21 });
    const env = { MPAY_CONFIG_DIR: cfg };
    // in-process (test/in-process.ts): what is read and printed is the command's, not the process's
    const page = await mpay(['history', '--json'], { env });
    expect(page.code, page.stderr).toBe(0);
    expect(page.json().map((r: { reference: string }) => r.reference)).toEqual(refs.slice(-30).reverse());
    expect(existsSync(join(cfg, 'journal', 'index', 'default.sandbox.jsonl', 'state.json'))).toBe(true);
    const five = await mpay(['history', '--limit', '5', '--csv', '--columns', 'reference'], { env });
    expect(five.stdout.trim().split('\n')).toEqual(['reference', ...refs.slice(-5).reverse()]);
    const all = await mpay(['history', '--all', '--json'], { env });
    const every = all.json() as JournalRecord[];
    expect(every.map((r) => r.reference)).toEqual([...refs].reverse());
    const { byRef } = plainRead(file);
    expect(every.find((r) => r.reference === refs[100])).toEqual(
      JSON.parse(JSON.stringify(byRef.get(refs[100]!)![0])),
    );
    const csv = await mpay(['history', '--all', '--csv'], { env });
    expect(csv.stdout.trim().split('\n')).toHaveLength(refs.length + 1);
    const table = await mpay(['history', '--all'], { env });
    expect(table.stdout.trim().split('\n')).toHaveLength(refs.length + 3); // top, header, rows, bottom
    const show = await mpay(['history', 'show', refs[3]!, '--json'], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.json().reference).toBe(refs[3]);
    const none = await mpay(['history', '--limit', '0'], { env });
    expect(none.code).toBe(2);
  });

  it('says on a terminal that it indexes a large journal, once', async () => {
    const cfg = tempDir();
    writeJournal(join(cfg, 'journal', 'default.sandbox.jsonl'), { count: 20_000, seed: 5 });
    const env = { MPAY_CONFIG_DIR: cfg };
    const first = await mpay(['history', '--limit', '1'], { env, tty: true });
    expect(first.code, first.stderr).toBe(0);
    // a note, folded at a space to the terminal's width
    expect(first.stderr.replace(/\n {2}(?=\S)/g, ' ')).toMatch(
      /indexing the journal .*default\.sandbox\.jsonl \(\d+ MB\), once/,
    );
    const second = await mpay(['history', '--limit', '1'], { env, tty: true });
    expect(second.stderr).not.toMatch(/indexing/);
  });
});

describe('two processes on one indexed journal', cpuBound, () => {
  it('each sees what the other appends and commits, whoever holds the lock', () => {
    const cfg = tempDir();
    const file = join(cfg, 'journal', 'default.sandbox.jsonl');
    writeJournal(file, { count: 1200, seed: 9 });
    const a = journalAt(cfg);
    const b = journalAt(cfg);
    a.recordsOf('x');
    // Each appends more than a tail's worth (64 KB), so that each commits while the other reads.
    for (let round = 0; round < 3; round++) {
      for (const [me, other, tag] of [
        [a, b, 'a'],
        [b, a, 'b'],
      ] as const) {
        for (let i = 0; i < 400; i++)
          me.append({
            reference: `${tag}-${round}-${i}`,
            kind: 'deposit',
            step: 'initiate',
            outcome: 'sent',
          });
        expect(other.recordsOf(`${tag}-${round}-399`)).toHaveLength(1);
        expect([...other.newest()][0]!.reference).toBe(`${tag}-${round}-399`);
      }
    }
    expectSame(journalAt(cfg), file);
  });
});
