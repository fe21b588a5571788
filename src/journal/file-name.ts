// The name of a profile's and environment's journal inside the folder's database (and of the file of
// JSON lines an older mpay kept for it: NAME.jsonl, imported at first use).
import { createHash } from 'node:crypto';

/**
 * A profile's and environment's journal name. A name with characters that cannot be in a file name gets a
 * digest of itself too, so that two profiles never share a journal (`we ird` and `we_ird` would both be
 * `we_ird`).
 */
export function journalName(profile: string, env: string): string {
  const safe = (s: string) =>
    /^[A-Za-z0-9._-]+$/.test(s)
      ? s
      : `${s.replace(/[^A-Za-z0-9._-]/g, '_')}-${createHash('sha256').update(s).digest('hex').slice(0, 8)}`;
  return `${safe(profile)}.${safe(env)}`;
}
