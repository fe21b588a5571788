// The journal's reads (journal/journal.ts), as history, resume and the gate use them: a key found at this
// journal's place or refused as living elsewhere, a hash token's start expanded, the records newest or
// oldest first and since a time, pruning, the lock of a key, and an old journal of JSON lines looked at
// once by each Journal of a process. Told through the Journal's own answers.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { ElsewhereError, UsageError } from '../src/common/errors.js';
import { Journal } from '../src/journal/journal.js';
import { lockName } from '../src/journal/locks.js';
import type { JournalEvent, Place } from '../src/journal/records.js';
import { root, tempDir, thrown } from './helpers.js';

const here: Place = {
  server: 'http://127.0.0.1:1',
  merchant: 'sha256:aaaaaaaaaaaa',
  profile: 'default',
  env: 'sandbox',
};
const there: Place = {
  server: 'http://127.0.0.1:2',
  merchant: 'sha256:bbbbbbbbbbbb',
  profile: 'default',
  env: 'sandbox',
};

/** A clock that gives each call the next minute from 10:00 (the journal's timestamps, one apart). */
function minutes(): () => Date {
  let n = 0;
  return () => new Date(Date.UTC(2026, 0, 10, 10, n++));
}

/** The default journal of `cfg` seen from `here` and from `there`, on one clock of minutes. */
function twoPlaces(cfg: string) {
  const now = minutes();
  return {
    now,
    atHere: new Journal(cfg, 'default', 'sandbox', { place: here, now }),
    atThere: new Journal(cfg, 'default', 'sandbox', { place: there, now }),
  };
}

type Line = Omit<JournalEvent, 'at' | 'place'>;
const sent = (reference: string, kind: 'deposit' | 'withdraw' = 'deposit'): Line => ({
  reference,
  kind,
  step: 'initiate',
  outcome: 'sent',
});
const answered = (reference: string, hash_token: string, status = 'pending'): Line => ({
  reference,
  kind: 'deposit',
  step: 'initiate',
  outcome: 'ok',
  hash_token,
  data: { status },
});
const processed = (reference: string): Line => ({
  reference,
  kind: 'deposit',
  step: 'processed',
  outcome: 'ok',
  data: { status: 'success' },
});

describe('find: the record of a key', () => {
  it('at a place: the record made there, or one without a place; one that lives only elsewhere refused, naming where', () => {
    const cfg = tempDir();
    const { now, atHere, atThere } = twoPlaces(cfg);
    const nowhere = new Journal(cfg, 'default', 'sandbox', { now });
    atHere.append(sent('both-1'));
    atThere.append(sent('both-1'));
    atThere.append(sent('there-1'));
    nowhere.append(sent('old-1'));
    expect(atHere.find('both-1')?.place).toEqual(here);
    expect(atThere.find('both-1')?.place).toEqual(there);
    // a record of before places were recorded is continued wherever it is asked
    expect(atHere.find('old-1')?.reference).toBe('old-1');
    expect(atHere.find('none-1')).toBeUndefined();
    const err = thrown(() => atHere.find('there-1'));
    expect(err).toBeInstanceOf(ElsewhereError);
    expect((err as ElsewhereError).message).toBe(
      `there-1 belongs to ${there.server} (profile default, environment sandbox, merchant key ${there.merchant}), not to ${here.server} (profile default, environment sandbox, merchant key ${here.merchant}); nothing was sent`,
    );
    expect((err as ElsewhereError).place).toEqual(there);
    // `--new-batch`: a key that lives only elsewhere is new here; one made here is still found
    const fresh = new Journal(cfg, 'default', 'sandbox', { place: here, newHere: true });
    expect(fresh.find('there-1')).toBeUndefined();
    expect(fresh.find('both-1')?.place).toEqual(here);
  });

  it('without a place: the record of the key updated last, the first made when two were updated at once', () => {
    const cfg = tempDir();
    const { atHere, atThere } = twoPlaces(cfg);
    atHere.append(sent('last-1'));
    atThere.append(sent('last-1'));
    atHere.append(answered('last-1', 'feed0001'));
    const all = new Journal(cfg, 'default', 'sandbox');
    expect(all.find('last-1')?.place).toEqual(here);
    atThere.append(answered('last-1', 'feed0002'));
    expect(all.find('last-1')?.place).toEqual(there);
    // two records of one reference last written at the same instant: the first made
    const same = () => new Date('2026-01-10T12:00:00Z');
    new Journal(cfg, 'default', 'sandbox', { place: there, now: same }).append(sent('tie-1'));
    new Journal(cfg, 'default', 'sandbox', { place: here, now: same }).append(sent('tie-1'));
    expect(all.find('tie-1')?.place).toEqual(there);
    expect(all.recordsOf('tie-1').map((r) => r.place)).toEqual([there, here]);
  });
});

describe('elsewhere: the records of a key not at this place', () => {
  it('at other places of this journal and in other profiles’ journals, the unfinished ones first', () => {
    const cfg = tempDir();
    const { now, atHere, atThere } = twoPlaces(cfg);
    const other = new Journal(cfg, 'other', 'sandbox', { place: { ...there, profile: 'other' }, now });
    atThere.append(sent('k-1'));
    atThere.append(processed('k-1'));
    other.append(sent('k-1'));
    atHere.append(sent('k-1'));
    new Journal(cfg, 'default', 'sandbox', { now }).append(sent('k-1'));
    const found = atHere.elsewhere('k-1');
    expect(found.map((r) => [r.place?.profile, r.status ?? 'unknown'])).toEqual([
      ['other', 'unknown'],
      ['default', 'success'],
    ]);
    // with no place, every record of this journal is "elsewhere" too
    const all = new Journal(cfg, 'default', 'sandbox').elsewhere('k-1');
    expect(all).toHaveLength(4);
    expect(all.at(-1)?.status).toBe('success');
  });
});

describe('expand: a key as a person gives it', () => {
  it('the start of a hash token (four characters or more, any case, an ellipsis pasted with it) is its reference', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox', { now: minutes() });
    j.append(sent('exp-1'));
    j.append(answered('exp-1', 'c0ffee0123456789'));
    j.append(sent('exp-2'));
    j.append(answered('exp-2', 'c0ffef9876543210'));
    j.append(sent('exp-3'));
    j.append(answered('exp-3', 'zz99ab12'));
    j.append(sent('exp-5'));
    j.append(answered('exp-5', 'ab12zz99'));
    for (const key of ['c0ffee', 'C0FFEE', 'c0ffee…', 'c0ffee...']) expect(j.expand(key), key).toBe('exp-1');
    // a reference, a whole hash token (the journal has each as it is given), one that starts no token
    expect(j.expand('exp-2')).toBe('exp-2');
    expect(j.expand('c0ffee0123456789')).toBe('c0ffee0123456789');
    expect(j.expand('dead')).toBe('dead');
    // fewer than four characters, an ellipsis not at its end, a key that is not hex: never expanded
    expect(j.expand('c0f')).toBe('c0f');
    expect(j.expand('c0ff…ee')).toBe('c0ff…ee');
    expect(j.expand('zz99')).toBe('zz99');
    expect(j.expand('ab12zz')).toBe('ab12zz');
    // four characters are enough when they start one token only
    expect(j.expand('c0fe')).toBe('c0fe');
    j.append(sent('exp-4'));
    j.append(answered('exp-4', 'abcd0000'));
    expect(j.expand('abcd')).toBe('exp-4');
    // the start of several: a usage error naming them
    const err = thrown(() => j.expand('c0ff'));
    expect(err).toBeInstanceOf(UsageError);
    expect(err).toMatchObject({
      message: '"c0ff" starts 2 hash tokens',
      hint: 'Give more of it, or the reference: exp-1, exp-2',
    });
  });
});

it('a journal not made yet expands nothing: the key as given', () => {
  const j = new Journal(tempDir(), 'default', 'sandbox');
  expect(j.expand('dead')).toBe('dead');
  expect(existsSync(j.dir)).toBe(false);
});

describe('the records in order', () => {
  it('newest first or oldest first (one reference at two places: two records), since a time', () => {
    const cfg = tempDir();
    const { atHere, atThere } = twoPlaces(cfg);
    atHere.append(sent('o-1')); // 10:00
    atHere.append(sent('o-2')); // 10:01
    atThere.append(sent('o-2')); // 10:02
    atHere.append(sent('o-3')); // 10:03
    const show = (rs: Iterable<{ reference: string; place?: Place }>) =>
      [...rs].map((r) => `${r.reference}@${r.place?.server === there.server ? 'there' : 'here'}`);
    expect(show(atHere.records())).toEqual(['o-1@here', 'o-2@here', 'o-2@there', 'o-3@here']);
    expect(show(atHere.newest())).toEqual(['o-3@here', 'o-2@there', 'o-2@here', 'o-1@here']);
    // since 10:01: a record made then is given, one made before not
    const since = Date.parse('2026-01-10T10:01:00Z');
    expect(show(atHere.newest({ since }))).toEqual(['o-3@here', 'o-2@there', 'o-2@here']);
    expect(show(atHere.newest({ since, oldest: true }))).toEqual(['o-2@here', 'o-2@there', 'o-3@here']);
    expect(atHere.eventsSince(Date.parse('2026-01-10T10:02:00Z')).map((e) => e.at)).toEqual([
      '2026-01-10T10:02:00.000Z',
      '2026-01-10T10:03:00.000Z',
    ]);
    expect(atHere.events()).toHaveLength(4);
  });

  it('newest({ since }) stops at the first record older than `since` (a damaged row past it is never read); a damaged row read is an error, not an end', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox', { now: minutes() });
    j.append(sent('d-1')); // 10:00
    j.append(sent('d-2')); // 10:01
    j.append(sent('d-3')); // 10:02
    const raw = new Database(j.file);
    try {
      raw.exec('DROP TRIGGER events_append_only');
      raw.exec("UPDATE events SET event = '{damaged' WHERE reference = 'd-1'");
    } finally {
      raw.close();
    }
    expect([...j.newest({ since: Date.parse('2026-01-10T10:02:00Z') })].map((r) => r.reference)).toEqual([
      'd-3',
    ]);
    expect(() => [...j.newest()]).toThrow(SyntaxError);
  });
});

describe('prune', () => {
  it('removes the records picked, whole, and says which; nothing picked touches nothing', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox', { now: minutes() });
    j.append(sent('p-1'));
    j.append(sent('p-2'));
    j.append(answered('p-2', 'abab0002'));
    j.append(sent('p-3'));
    expect(j.prune((r) => r.reference === 'p-2')).toEqual(['p-2']);
    expect(j.records().map((r) => r.reference)).toEqual(['p-1', 'p-3']);
    expect(j.events().map((e) => e.reference)).toEqual(['p-1', 'p-3']);
    // pruning nothing does not even open the journal: an old journal beside it is left for a real use
    const other = tempDir();
    mkdirSync(join(other, 'journal'), { mode: 0o700 });
    const old = join(other, 'journal', 'default.sandbox.jsonl');
    copyFileSync(join(root, 'test', 'fixtures', 'journal-jsonl', 'default.sandbox.jsonl'), old);
    chmodSync(old, 0o600);
    expect(new Journal(other, 'default', 'sandbox').pruneReferences(new Set())).toEqual([]);
    expect(existsSync(old)).toBe(true);
  });
});

it('an old journal of JSON lines put beside a database this process has open is imported at the first use of each Journal, not at its later ones', () => {
  const cfg = tempDir();
  const notes: string[] = [];
  const note = (m: string) => void notes.push(m);
  const first = new Journal(cfg, 'default', 'sandbox', { note });
  expect(first.events()).toEqual([]); // no journal yet: this is not a use
  const second = new Journal(cfg, 'default', 'sandbox', { note });
  second.append(sent('imp-1'));
  const old = join(cfg, 'journal', 'default.sandbox.jsonl');
  copyFileSync(join(root, 'test', 'fixtures', 'journal-jsonl', 'default.sandbox.jsonl'), old);
  chmodSync(old, 0o600);
  // a later use of a Journal that used the database already does not look
  expect(second.events().map((e) => e.reference)).toEqual(['imp-1']);
  expect(existsSync(old)).toBe(true);
  // the first use of another does
  const refs = first.events().map((e) => e.reference);
  expect(refs[0]).toBe('imp-1');
  expect(refs.length).toBeGreaterThan(1);
  expect(existsSync(old)).toBe(false);
  expect(notes).toHaveLength(1);
});

it('hold: the lock of a key, in the journal folder where another mpay meets it, until released', async () => {
  const j = new Journal(tempDir(), 'default', 'sandbox');
  const name = lockName('transaction', 'h-1');
  const held = () => readdirSync(join(j.dir, 'locks')).filter((n) => n.startsWith(name));
  const release = await j.hold(['transaction', 'h-1'], 'the deposit h-1');
  expect(held()).not.toEqual([]);
  await release();
  expect(held()).toEqual([]);
});
