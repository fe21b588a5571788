// A slow, rate-limited API on demand (`mpay sandbox --latency MS --rate-limit N/s`), for users testing
// their own integrations and for the benchmark: every API request waits MS before it is handled, and
// beyond N requests in a window of one second the answer is 429 with Retry-After (whole seconds, as
// RFC 9110 writes it) until the window ends. A 429 changes nothing on the server.

/** `200/s` or `600/min` (the unit required); the budget per window and the window's length in ms. */
export function parseRateLimit(text: string): { limit: number; windowMs: number } | undefined {
  // The unit is required: "20" could mean a second or a minute, sixty times apart.
  const m = /^\s*(\d+)\s*\/\s*(s|sec|second|m|min|minute)\s*$/i.exec(text);
  if (!m) return undefined;
  const limit = Number(m[1]);
  if (!(limit >= 1)) return undefined;
  const unit = m[2]!.toLowerCase();
  return { limit, windowMs: unit.startsWith('m') ? 60_000 : 1_000 };
}

/** A fixed window: `limit` requests, then 429s until the window ends. */
export class RateLimiter {
  private windowStart = 0;
  private used = 0;
  refused = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Undefined when the request may go on; else the seconds to put in Retry-After. */
  take(): number | undefined {
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      this.windowStart = t;
      this.used = 0;
    }
    if (this.used < this.limit) {
      this.used++;
      return undefined;
    }
    this.refused++;
    return Math.max(1, Math.ceil((this.windowStart + this.windowMs - t) / 1000));
  }
}

/** A small seeded generator (mulberry32), so that faults drawn at random can be drawn again. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
