// The name of a profile's and environment's journal file.
import { createHash } from 'node:crypto';

/**
 * The file of a profile's and environment's journal, inside the journal folder. A name with characters
 * that cannot be in a file name gets a digest of itself too, so that two profiles never share a file
 * (`we ird` and `we_ird` would both be `we_ird`).
 */
export function journalFileName(profile: string, env: string): string {
  const safe = (s: string) =>
    /^[A-Za-z0-9._-]+$/.test(s)
      ? s
      : `${s.replace(/[^A-Za-z0-9._-]/g, '_')}-${createHash('sha256').update(s).digest('hex').slice(0, 8)}`;
  return `${safe(profile)}.${safe(env)}.jsonl`;
}
