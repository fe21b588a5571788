// mpay history prune: settled transactions older than asked go; every transaction still in progress stays
// whatever its age (it is what --resume needs); --dry-run removes nothing.
import { expect, it } from 'vitest';
import { Journal } from '../src/journal/journal.js';
import { journalEvents, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

it('removes settled, old transactions only, and says so', async () => {
  const cfg = tempDir();
  const at = (iso: string) => () => new Date(iso);
  const old = new Journal(cfg, 'default', 'sandbox', { now: at('2026-01-10T10:00:00Z') });
  const step = (j: Journal, reference: string, s: 'initiate' | 'processed', status: string) =>
    j.append({
      reference,
      kind: 'deposit',
      step: s,
      outcome: 'ok',
      hash_token: `${reference}hash0000`,
      data: { status },
    });
  step(old, 'old-done', 'initiate', 'initiated');
  step(old, 'old-done', 'processed', 'pending');
  step(old, 'old-open', 'initiate', 'initiated');
  old.append({ reference: 'old-sent', kind: 'withdraw', step: 'initiate', outcome: 'sent' });
  const recent = new Journal(cfg, 'default', 'sandbox');
  step(recent, 'new-done', 'initiate', 'initiated');
  step(recent, 'new-done', 'processed', 'pending');
  const env = { MPAY_CONFIG_DIR: cfg };

  const dry = await mpay(['history', 'prune', '--older-than', '90d', '--dry-run', '--json'], { env });
  expect(dry.json()).toMatchObject({ removed: ['old-done'], kept: 3, in_progress_kept: 2, dry_run: true });
  const before = journalEvents(cfg);

  const r = await mpay(['history', 'prune', '--older-than', '90d'], { env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(
    /^Removed 1 settled transaction from .*journal\.db; 3 kept \(2 still in progress\)\./,
  );
  const refs = (await mpay(['history', '--json'], { env }))
    .json()
    .map((x: { reference: string }) => x.reference);
  expect(refs).toEqual(['new-done', 'old-sent', 'old-open']); // newest first
  const after = journalEvents(cfg);
  expect(after).toEqual(before.filter((e) => e.reference !== 'old-done'));
  expect(before.filter((e) => e.reference === 'old-done')).toHaveLength(2);

  const bad = await mpay(['history', 'prune', '--json'], { env });
  expect(bad.code).toBe(2);
  expect(bad.json().error.message).toBe('Give one of --older-than or --before');
  expect(
    (await mpay(['history', 'prune', '--before', '2026-02-01', '--json'], { env })).json().removed,
  ).toEqual([]);
});
