// Moving a record to another base URL of the same merchant (`mpay history move`): a transaction started
// through `mpay proxy` belongs to the proxy's URL, and a provider may move its API. The record's server
// changes by a journal line of its own ('moved'), written under the transaction's lock; its merchant (the
// key's fingerprint) never changes, so it is continued only with the same key, as before.
import { UsageError } from '../../common/errors.js';
import { checkBaseUrl, normalizeBaseUrl } from '../../api/base-url.js';
import { serverKey } from '../../config/live.js';
import type { JournalLike } from '../../journal/journal.js';
import { samePlace, type JournalRecord } from '../../journal/records.js';
import { holdTransaction } from '../gate/money-gate.js';

export interface Moved {
  reference: string;
  from: string;
  to: string;
}

/** The base URL a record moves to, checked as every base URL is (https, or http on loopback). */
export function targetUrl(raw: string): string {
  const { url } = normalizeBaseUrl(raw);
  checkBaseUrl(url);
  return url;
}

/** Whether a record lives at this server, however its URL is spelled. */
export const livesAt = (r: JournalRecord, server: string) =>
  Boolean(r.place && serverKey(r.place.server) === serverKey(server));

/**
 * Moves one record to `to`, journaled in its own journal (`journal` stamps its place), under its lock.
 * Refused when it has no place (a record from before places were kept goes anywhere already), when it is
 * there already, or when the target already holds a record of the same reference and merchant.
 */
export async function moveRecord(
  journal: JournalLike,
  r: JournalRecord,
  to: string,
  others: JournalRecord[],
): Promise<Moved> {
  if (!r.place) throw new UsageError(`${r.reference} names no server: it is continued wherever it is asked`);
  if (livesAt(r, to)) throw new UsageError(`${r.reference} lives at ${to} already`);
  const target = { ...r.place, server: to };
  if (others.some((o) => o !== r && o.place && samePlace(o.place, target)))
    throw new UsageError(`${to} has a record of ${r.reference} for the same merchant already: not moved`);
  const release = await holdTransaction(r.reference, r.kind, r.place, journal);
  try {
    journal.append({
      reference: r.reference,
      kind: r.kind,
      step: 'moved',
      outcome: 'ok',
      hash_token: r.hash_token,
      data: { from: r.place.server, to },
    });
  } finally {
    await release();
  }
  return { reference: r.reference, from: r.place.server, to };
}
