// A batch's pace once the server rate-limits it (HTTP 429): the pacer its client is made with, the one
// line that says so, the wait counted down on the bar, and the pace kept, said at the end
// (flows/batch/batch-run.ts).
import { Pacer, rateInWords, waitInWords, type Throttle } from '../../api/rate-limit.js';

/** Where the pace is said: the batch's progress (ui/batch-progress.ts), once it is drawn. */
export interface PaceProgress {
  note(line: string): void;
  waiting(ms: number): void;
}

/**
 * After a 429 the rows' requests go out at the pace the server allows, and the batch says so once, not
 * one line a refused request; on a terminal its bar counts each wait down. The pace it reports at the end
 * is the one kept, measured: the rows that ended from the first 429 on, over the time since. The batch
 * makes this before its client, and hands the pacer and the report of each wait to the client at
 * construction (Factory.flowDeps); the progress it reports to comes later.
 */
export class BatchPace {
  readonly pacer = new Pacer();
  private throttles = 0;
  private since?: number;
  private rowsSince = 0;
  private progress?: PaceProgress;

  /** where the first wait is said: the batch's progress, once it is drawn */
  reportTo(progress: PaceProgress): void {
    this.progress = progress;
  }

  readonly onThrottle = (t: Throttle): void => {
    if (this.throttles++ === 0) {
      this.since = Date.now();
      // what holds the batch back is the server's wait, which is said; the pacer's rate is only a ceiling
      // (the end says the pace kept)
      this.progress?.note(
        `mpay: rate limited (HTTP 429): requests now go out at most ${rateInWords(this.pacer.rate ?? 1)}, fewer while the server asks to wait (now ${waitInWords(t.waitMs)}; the bar counts each wait down)`,
      );
    }
    this.progress?.waiting(t.waitMs);
  };

  /** a row ended: counted for the pace kept once rate limited */
  rowEnded(): void {
    if (this.since !== undefined) this.rowsSince++;
  }

  summary(): string | undefined {
    const n = this.throttles;
    if (!n || this.since === undefined) return undefined;
    const ms = Math.max(1, Date.now() - this.since);
    return `Rate limited ${n} time${n > 1 ? 's' : ''}: requests were paced down to ${rateInWords(this.pacer.lowest ?? 1)}, and ended at ${rateInWords(this.pacer.rate ?? 1)}; the pace kept, from the first 429 on: ${this.rowsSince} row${this.rowsSince === 1 ? '' : 's'} in ${waitInWords(ms)}, ${paceInWords(this.rowsSince, ms)}`;
  }
}

/** A pace in the unit that reads: "2.5 rows a second", "4 rows a minute", "1 row an hour". */
export function paceInWords(rows: number, ms: number): string {
  const per = (unit: number) => Math.round(((rows * unit) / ms) * 10) / 10;
  const [n, unit] =
    per(1000) >= 1
      ? [per(1000), 'a second']
      : per(60_000) >= 1
        ? [per(60_000), 'a minute']
        : [per(3_600_000), 'an hour'];
  return `${n} row${n === 1 ? '' : 's'} ${unit}`;
}
