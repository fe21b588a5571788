// Rate limits (docs/spec-readings.md): a 429 says the server did not process the request, so any request,
// money-moving ones included, is sent again after the wait the server asks for (Retry-After, in seconds
// or as a date), or after a bounded back-off when it names none. A 503 with Retry-After is treated alike
// for GETs (a 503 of a POST may have been processed: it is never re-sent). The tries are bounded; then
// the call fails as `rate_limited` (exit 12).
import { RateLimitedError } from '../common/errors.js';

/** What the client tells its listeners about one wait. */
export interface Throttle {
  method: string;
  path: string;
  status: number;
  /** the try that was refused, from 1 */
  attempt: number;
  /** how many tries a call gets in all */
  tries: number;
  waitMs: number;
}

export interface RateLimitPolicy {
  /** tries in all, the first included (default 6) */
  tries: number;
  /** the longest single wait mpay accepts; a server asking for more is reported at once (default 60 s) */
  maxWaitMs: number;
  /** the first back-off when the server names no wait, doubled each time (default 500 ms) */
  baseMs: number;
}

export const defaultRateLimitPolicy: RateLimitPolicy = { tries: 6, maxWaitMs: 60_000, baseMs: 500 };

/**
 * The wait a Retry-After header asks for, in ms: delay-seconds (a decimal is taken too, as some servers
 * send one), or an HTTP date; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!v) return undefined;
  // Only a number of seconds (never negative) or a date; anything else counts as no header.
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  if (/^[-+]?\d/.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A wait as a person reads it: seconds up to five minutes ("145 s"), then minutes ("12 min"), hours ("5
 * hours"), and anything over a day as "more than a day" (a Retry-After of 99999999999999999999999 is not
 * "1e+23 s").
 */
export function waitInWords(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (!Number.isFinite(s) || s > 86_400) return 'more than a day';
  if (s <= 300) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} hours`;
}

/**
 * A pacer's rate as a person reads it: "4 a second" from one a second up, else "one every 6 s" (to a tenth
 * of a second below ten seconds: 10 a minute is one every 6 s, not "0 a second").
 */
export function rateInWords(perSecond: number): string {
  if (perSecond >= 1) return `${Math.round(perSecond)} a second`;
  const every = 1 / perSecond;
  if (every < 10) return `one every ${Math.round(every * 10) / 10} s`;
  return `one every ${waitInWords(every * 1000)}`;
}

/** Whether an answer is a refusal to be waited out: any 429, and a 503 with Retry-After to a GET. */
export function isThrottle(
  method: string,
  status: number,
  retryAfter: string | string[] | undefined,
): boolean {
  return status === 429 || (status === 503 && method === 'GET' && retryAfter !== undefined);
}

/**
 * How long to wait before try `attempt + 1`, or a RateLimitedError when no try is left or the server asks
 * for more than `maxWaitMs`.
 */
export function nextWait(
  t: Omit<Throttle, 'waitMs' | 'tries'>,
  retryAfter: string | string[] | undefined,
  policy: RateLimitPolicy,
): number {
  const asked = retryAfterMs(retryAfter);
  const what = `${t.method} /${t.path}`;
  const done = t.status === 429 ? 'the server did not process it' : 'the server was unavailable (HTTP 503)';
  if (asked !== undefined && asked > policy.maxWaitMs) {
    const e = new RateLimitedError(
      `Rate limited: ${what} answered ${t.status} and asked to wait ${waitInWords(asked)}, more than the ${waitInWords(policy.maxWaitMs)} mpay waits; ${done}`,
      { status: t.status, hint: 'Run the same command again later' },
    );
    e.retryAfterMs = asked;
    throw e;
  }
  if (t.attempt >= policy.tries) {
    const e = new RateLimitedError(
      `Rate limited: ${what} answered ${t.status} to each of ${policy.tries} tries; ${done}`,
      {
        status: t.status,
        hint: 'Run the same command again later (a batch: with a lower --concurrency); nothing was applied',
      },
    );
    e.retryAfterMs = asked;
    throw e;
  }
  return asked ?? policy.baseMs * 2 ** (t.attempt - 1);
}

/**
 * The pace of a client that met rate limits (a batch turns it on): after a 429, requests go out no faster
 * than the server was seen to answer them in the second before (a little under it). The pace grows back
 * by 1% at a request's turn three seconds or more after its last change (a 429 or a growth), so while
 * requests keep coming without a 429 it grows about 1% each three seconds, with no ceiling: once it is
 * past what the batch asks for it no longer holds any request back, though it is never unset. Requests
 * waiting their turn wait here, not at the server: fewer are in flight there, and a row is not stalled
 * for a whole Retry-After by each refusal.
 *
 * A server whose window is longer than a second (`10/min`) says so by its wait: a Retry-After over a second
 * means the budget it allowed since its window began (the answers since the last wait ended) is spread
 * over that time and the wait, so the pace drops to those answers over that span (10 in a minute: one
 * every 6 s), not to the burst of the second before (which the window had allowed once, not each second).
 */
export class Pacer {
  /** requests a second; undefined until the first 429, and set from then on */
  rate?: number;
  /** the lowest pace set, for the batch's closing line and the bench */
  lowest?: number;
  private next = 0;
  private lastChange = 0;
  private readonly answers: number[] = [];
  /** when the server's window began, as far as mpay can tell: the first answer, then each wait's end */
  private windowStart?: number;
  /** answers since windowStart */
  private inWindow = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Takes this request's turn: the ms it waits for it (0: it goes now). */
  turn(): number {
    if (this.rate === undefined) return 0;
    const t = this.now();
    if (t - this.lastChange >= 3000) {
      this.rate *= 1.01;
      this.lastChange = t;
    }
    const at = Math.max(t, this.next);
    this.next = at + 1000 / this.rate;
    return at - t;
  }

  /** Waits for this request's turn. */
  async take(): Promise<void> {
    const ms = this.turn();
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  }

  /** An answer came (not a throttle): counted for the rate the server allows. */
  answered(): void {
    const t = this.now();
    this.answers.push(t);
    while (this.answers.length && this.answers[0]! < t - 1000) this.answers.shift();
    this.windowStart ??= t;
    if (t >= this.windowStart) this.inWindow++;
  }

  /**
   * A 429, and the wait it asked for: the pace drops to what the server answered in the last second, less
   * 1%; and when the wait is over a second, to the answers of the server's window over its whole span.
   */
  throttled(waitMs = 0): void {
    const t = this.now();
    while (this.answers.length && this.answers[0]! < t - 1000) this.answers.shift();
    let seen = Math.max(1, this.answers.length) * 0.99;
    const start = this.windowStart ?? t;
    // a refusal during a wait already counted (another row's, in flight) says nothing new of the window
    if (t >= start) {
      if (waitMs > 1000) seen = Math.min(seen, (Math.max(1, this.inWindow) * 1000) / (t - start + waitMs));
      this.windowStart = t + waitMs;
      this.inWindow = 0;
    }
    this.lastChange = t;
    if (this.rate !== undefined && this.rate <= seen) return;
    this.rate = seen;
    this.lowest = Math.min(this.lowest ?? seen, seen);
  }
}
