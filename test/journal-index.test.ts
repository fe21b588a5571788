// The journal keeps what it has read and parses only what was appended since: these check that the
// index never goes stale, whoever writes the file (another Journal stands for another mpay process).
import {
  appendFileSync,
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fnv } from '../src/journal/bytes.js';
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
  const fresh = new Journal(cfg, 'default', 'sandbox', { indexFrom: 0 });
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

/** The index folder of a journal, and the shard file (and its name) that holds `key`'s lines. */
function shardOf(cfg: string, key: string) {
  const dir = join(cfg, 'journal', 'index', 'default.sandbox.jsonl');
  const name = readdirSync(dir).find(
    (n) => n.startsWith('keys-') && readFileSync(join(dir, n), 'utf8').includes(`${JSON.stringify(key)}\t`),
  )!;
  return { dir, name, path: join(dir, name), shard: name.slice('keys-'.length, -'.tsv'.length) };
}

/** A journal whose index is built: a filler first, then `ka` sent and ok, then `kb`, of other amounts. */
function indexed() {
  const cfg = tempDir();
  const j = new Journal(cfg, 'default', 'sandbox');
  j.append({ ...event('filler', 'initiate', 'sent'), data: { note: 'x'.repeat(120) } });
  j.append({ ...event('ka', 'initiate', 'sent'), data: { amount: '11', currency: 'GHS' } });
  j.append({
    ...event('ka', 'initiate', 'ok'),
    data: { amount: '11', currency: 'GHS', status: 'initiated' },
  });
  j.append({ ...event('kb', 'initiate', 'ok'), data: { amount: '99', currency: 'USD', status: 'failed' } });
  // a journal indexed from its first byte builds the index of every line at its first read
  const first = new Journal(cfg, 'default', 'sandbox', { indexFrom: 0 });
  expect(first.find('ka')?.steps).toEqual([expect.objectContaining({ step: 'initiate', outcome: 'ok' })]);
  const offsets = (key: string) =>
    [...readFileSync(shardOf(cfg, key).path, 'utf8').matchAll(new RegExp(`^"${key}"\\t(\\d+)$`, 'gm'))].map(
      (m) => m[1]!,
    );
  return { cfg, offsets };
}

it('a shard changed in place, its length kept, is noticed by its sum: the record is read whole', () => {
  const { cfg, offsets } = indexed();
  const [sent, ok] = offsets('ka');
  // both offsets of three digits: the shard keeps its length, only its sum can tell
  expect(sent!.length).toBe(ok!.length);
  const { path } = shardOf(cfg, 'ka');
  writeFileSync(path, readFileSync(path, 'utf8').replace(`"ka"\t${ok}\n`, `"ka"\t${sent}\n`));
  const fresh = new Journal(cfg, 'default', 'sandbox', { indexFrom: 0 });
  expect(fresh.find('ka')).toMatchObject({
    amount: '11',
    status: 'initiated',
    steps: [{ step: 'initiate', outcome: 'ok' }],
  });
});

it('offsets that name another key are noticed even when the sums were made to agree: the record is its own', () => {
  const { cfg, offsets } = indexed();
  const [, ok] = offsets('ka');
  const [theirs] = offsets('kb');
  const { dir, path, shard } = shardOf(cfg, 'ka');
  // ka's lines pointed at kb's, and state.json's length and sum of that shard written to agree
  const text = readFileSync(path, 'utf8').replaceAll(new RegExp(`^"ka"\\t\\d+$`, 'gm'), `"ka"\t${theirs}`);
  writeFileSync(path, text);
  const statePath = join(dir, 'state.json');
  const state = JSON.parse(readFileSync(statePath, 'utf8'));
  state.shards[shard] = Buffer.byteLength(text);
  state.sums[shard] = fnv(Buffer.from(text));
  writeFileSync(statePath, JSON.stringify(state));
  expect(ok).toBeDefined();
  const fresh = new Journal(cfg, 'default', 'sandbox', { indexFrom: 0 });
  expect(fresh.find('ka')).toMatchObject({
    reference: 'ka',
    amount: '11',
    currency: 'GHS',
    status: 'initiated',
    steps: [{ step: 'initiate', outcome: 'ok' }],
  });
});
