// The times --since, --until, --before and --older-than take: an ISO date or an age (30m, 2d…).
import { UsageError } from './errors.js';

const units: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * A moment given as a duration ago (90m, 2h, 7d, 1w), an ISO time (2026-11-20T14:00Z), or a date
 * (2026-11-20: its start for --since, its end for --until, in UTC).
 */
export function parseWhen(text: string, flag: string, now: Date): number {
  const ago = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (ago) return now.getTime() - Number(ago[1]) * units[ago[2]!]!;
  if (/^\d{4}-\d\d-\d\d$/.test(text) && !Number.isNaN(Date.parse(text)))
    return Date.parse(text) + (flag === '--until' ? units.d! - 1 : 0);
  if (/^\d{4}-\d\d-\d\dT/.test(text) && !Number.isNaN(Date.parse(text))) return Date.parse(text);
  throw new UsageError(`Invalid ${flag} "${text}"`, {
    hint: 'A duration ago (90m, 2h, 7d, 1w), a date (2026-11-20) or an ISO time (2026-11-20T14:00:00Z)',
  });
}
