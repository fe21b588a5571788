// The journal keeps what it has read and parses only what was appended since: these check that the
// index never goes stale, whoever writes the file (another Journal stands for another mpay process).
import { appendFileSync, closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { expect, it } from 'vitest';
import { Journal } from '../src/journal/journal.js';
import { tempDir } from './helpers.js';

const event = (reference: string, step: 'initiate' | 'processed', outcome: 'sent' | 'ok') => ({
  reference,
  kind: 'deposit' as const,
  step,
  outcome,
  ...(step === 'initiate' && outcome === 'ok' ? { hash_token: `hash-${reference}` } : {}),
  data: { amount: '10', currency: 'GHS' },
});

it('sees what another process appended after its last read, by reference and by hash token', () => {
  const cfg = tempDir();
  const mine = new Journal(cfg, 'default', 'sandbox');
  const theirs = new Journal(cfg, 'default', 'sandbox');
  mine.append(event('ref-a', 'initiate', 'sent'));
  expect(mine.find('ref-a')?.steps).toEqual([expect.objectContaining({ step: 'initiate', outcome: 'sent' })]);
  theirs.append(event('ref-a', 'initiate', 'ok'));
  theirs.append(event('ref-b', 'initiate', 'sent'));
  expect(mine.find('ref-a')?.steps).toEqual([expect.objectContaining({ step: 'initiate', outcome: 'ok' })]);
  expect(mine.find('hash-ref-a')?.reference).toBe('ref-a');
  expect(mine.records().map((r) => r.reference)).toEqual(['ref-a', 'ref-b']);
  expect(mine.events()).toHaveLength(3);
});

it('hands out copies: changing a record found does not change the next one', () => {
  const j = new Journal(tempDir(), 'default', 'sandbox');
  j.append(event('ref-c', 'initiate', 'ok'));
  j.find('ref-c')!.steps.push({ step: 'processed', outcome: 'ok', at: 'now' });
  j.records()[0]!.status = 'success';
  expect(j.find('ref-c')?.steps).toHaveLength(1);
  expect(j.find('ref-c')?.status).toBeUndefined();
});

it('reads the file again when another process pruned it (a new file in its place)', () => {
  const cfg = tempDir();
  const mine = new Journal(cfg, 'default', 'sandbox');
  const theirs = new Journal(cfg, 'default', 'sandbox');
  mine.append(event('ref-d', 'initiate', 'ok'));
  mine.append(event('ref-e', 'initiate', 'ok'));
  expect(mine.records()).toHaveLength(2);
  expect(theirs.prune((r) => r.reference === 'ref-d')).toEqual(['ref-d']);
  expect(mine.find('ref-d')).toBeUndefined();
  expect(mine.records().map((r) => r.reference)).toEqual(['ref-e']);
});

it('a last line torn mid-write is reported once, skipped, and the records after it are read', () => {
  const cfg = tempDir();
  const warnings: string[] = [];
  const j = new Journal(cfg, 'default', 'sandbox', { warn: (m) => warnings.push(m) });
  j.append(event('ref-f', 'initiate', 'ok'));
  appendFileSync(j.file, '{"reference":"ref-g","kind":"depo');
  expect(j.records().map((r) => r.reference)).toEqual(['ref-f']);
  expect(j.records()).toHaveLength(1);
  expect(warnings).toEqual([expect.stringMatching(/line 2 is damaged/)]);
  j.append(event('ref-h', 'initiate', 'ok'));
  expect(j.records().map((r) => r.reference)).toEqual(['ref-f', 'ref-h']);
  expect(warnings).toHaveLength(1);
  expect(readFileSync(j.file, 'utf8')).toContain('"kind":"depo\n');
});

it('a last line written whole but without its newline is a record', () => {
  const cfg = tempDir();
  const j = new Journal(cfg, 'default', 'sandbox');
  j.append(event('ref-i', 'initiate', 'ok'));
  appendFileSync(j.file, JSON.stringify({ at: '2026-11-22T00:00:00Z', ...event('ref-j', 'initiate', 'ok') }));
  expect(j.records().map((r) => r.reference)).toEqual(['ref-i', 'ref-j']);
  j.append(event('ref-k', 'initiate', 'ok'));
  expect(j.records().map((r) => r.reference)).toEqual(['ref-i', 'ref-j', 'ref-k']);
});

it('a file cut shorter in place (same inode) is read again from the start', () => {
  const cfg = tempDir();
  const j = new Journal(cfg, 'default', 'sandbox');
  j.append(event('ref-l', 'initiate', 'ok'));
  j.append(event('ref-m', 'initiate', 'ok'));
  expect(j.records()).toHaveLength(2);
  const first = readFileSync(j.file, 'utf8').split('\n')[0];
  writeFileSync(j.file, `${first}\n`);
  expect(j.records().map((r) => r.reference)).toEqual(['ref-l']);
});

it('a prune keeps what another process appends while it runs, before the rename and after it', () => {
  const cfg = tempDir();
  const pruner = new Journal(cfg, 'default', 'sandbox');
  const other = new Journal(cfg, 'default', 'sandbox');
  pruner.append(event('old-1', 'initiate', 'ok'));
  pruner.append(event('old-1', 'processed', 'ok'));
  pruner.append(event('keep-1', 'initiate', 'sent'));
  // A writer that opened the file before the rename and writes after it (appends open, write, close).
  let lateFd: number | undefined;
  const removed = pruner.prune((r) => r.reference === 'old-1', {
    beforeRename: () => {
      other.append(event('during-1', 'initiate', 'sent'));
      other.append(event('old-1', 'processed', 'ok')); // a line of a pruned transaction, written late
      lateFd = openSync(pruner.file, 'a');
    },
    afterRename: () => {
      writeSync(
        lateFd!,
        `${JSON.stringify({ at: new Date().toISOString(), ...event('late-1', 'initiate', 'sent') })}\n`,
      );
      closeSync(lateFd!);
    },
  });
  expect(removed).toEqual(['old-1']);
  const fresh = new Journal(cfg, 'default', 'sandbox');
  expect(
    fresh
      .records()
      .map((r) => r.reference)
      .sort(),
  ).toEqual(['during-1', 'keep-1', 'late-1', 'old-1']);
  // old-1 is back only through the line written during the prune: the pruned lines are gone.
  expect(fresh.find('old-1')?.steps).toEqual([expect.objectContaining({ step: 'processed' })]);
  expect(readFileSync(pruner.file, 'utf8').endsWith('\n')).toBe(true);
});
