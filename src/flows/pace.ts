// How many rows of a batch are in flight: at most --concurrency, fewer while the server answers 429s.
// On a 429 the limit drops by a quarter (at most once a second: the requests already in flight answer
// 429 too, and are one signal, not many); after as many rows end as the limit allows, it grows by one
// again, back up to --concurrency. Additive increase, multiplicative decrease: as TCP finds its rate.

export class AdaptiveLimit {
  limit: number;
  /** the lowest the limit went, and how often it was cut: the batch's closing line, and the bench */
  lowest: number;
  cuts = 0;
  private inFlight = 0;
  private endedSinceChange = 0;
  private lastCut = Number.NEGATIVE_INFINITY;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly max: number,
    /** told each time the limit changes */
    private readonly changed: (limit: number) => void = () => {},
    private readonly now: () => number = () => Date.now(),
    private readonly cutEveryMs = 1000,
  ) {
    this.limit = max;
    this.lowest = max;
  }

  /** Waits for a place among the rows in flight. */
  async acquire(): Promise<void> {
    while (this.inFlight >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
  }

  /** A row ended: its place is free, and the limit may grow. */
  release(): void {
    this.inFlight--;
    if (this.limit < this.max && ++this.endedSinceChange >= this.limit) {
      this.limit++;
      this.endedSinceChange = 0;
      this.changed(this.limit);
    }
    this.wake();
  }

  /** The server answered 429 (or a 503 with Retry-After). */
  throttled(): void {
    const t = this.now();
    if (t - this.lastCut < this.cutEveryMs) return;
    this.lastCut = t;
    const next = Math.max(1, Math.floor(this.limit * 0.75));
    this.endedSinceChange = 0;
    if (next === this.limit) return;
    this.limit = next;
    this.cuts++;
    this.lowest = Math.min(this.lowest, next);
    this.changed(next);
  }

  private wake(): void {
    while (this.waiting.length && this.inFlight < this.limit) this.waiting.shift()!();
  }
}
