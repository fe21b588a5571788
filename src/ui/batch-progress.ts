// How a batch shows its rows as they end: on a terminal, one progress bar (rows done, failed, rate, time
// left; cli-progress) with the rows that failed printed above it; otherwise a plain line per row, which a
// log or a pipe keeps whole.
import type { RowResult } from '../flows/batch/batch-row.js';
import type { Text } from '../io/fold.js';
import type { IO } from '../io/io.js';
import { importLazily } from '../lazy-import.js';
import { waitInWords } from '../api/rate-limit.js';

export interface BatchProgress {
  row(r: RowResult): void;
  /** a line for the person (or a command line to paste), above the bar when there is one */
  note(line: Text): void;
  /** a rate-limit wait of `ms` began: on a terminal the bar counts it down */
  waiting(ms: number): void;
  stop(): void;
}

const lineOf = (r: RowResult) =>
  `row ${r.row} ${r.reference}: ${r.outcome}${r.status ? ` (${r.status})` : ''}${r.error ? `: ${r.error.message}` : ''}`;

export async function batchProgress(io: IO, total: number): Promise<BatchProgress> {
  if (!io.stderrIsTTY || total < 1)
    return { row: (r) => io.note(lineOf(r)), note: (l) => io.note(l), waiting: () => {}, stop: () => {} };
  const loaded = await importLazily<
    typeof import('cli-progress') & { default?: typeof import('cli-progress') }
  >('cli-progress');
  // a CommonJS module: its Format is on the module object only (Node names only some exports)
  const { MultiBar, Presets, Format } = loaded.default ?? loaded;
  const started = Date.now();
  const multi = new MultiBar(
    {
      stream: io.stderr as NodeJS.WriteStream,
      // During a rate-limit wait the rate and the time left are stale: the wait counting down takes their
      // place, so that it fits 80 columns beside the bar and the counts (a cut line would hide it).
      format: (options, params, payload: { wait?: string }) =>
        Format.Formatter(
          {
            ...options,
            format: payload.wait
              ? ' {bar} {value}/{total} rows | {problems} | {wait}'
              : ' {bar} {value}/{total} rows | {problems} | {rate} rows/s | {eta_formatted} left',
          },
          params,
          payload,
        ),
      hideCursor: true,
      // the bar fits the terminal (the counts beside it take up to about 60 columns); linewrap: true cuts
      // only the bar's own line at the edge, and writes the lines logged above it (a failed row) whole
      barsize: Math.max(10, Math.min(40, ((io.stderr as NodeJS.WriteStream).columns || 80) - 62)),
      linewrap: true,
      clearOnComplete: false,
      etaBuffer: 50,
      // the rows' own lines above the bar are the record; the bar redraws at most ten times a second
      fps: 10,
    },
    Presets.shades_classic,
  );
  // the bar counts as the summary does: failed and unknown apart (unknown only once there is one)
  const problems = () => `${failed} failed${unknown ? `, ${unknown} unknown` : ''}`;
  let failed = 0;
  let unknown = 0;
  let stopped = false;
  const bar = multi.create(total, 0, { problems: problems(), rate: '0', wait: '' });
  // A rate-limit wait, counted down on the bar once a second until it ends (the longest one in flight).
  let waitUntil = 0;
  let ticker: NodeJS.Timeout | undefined;
  const tick = () => {
    const left = Math.ceil((waitUntil - Date.now()) / 1000);
    bar.update({ wait: left > 0 ? `rate limited: waiting ${waitInWords(left * 1000)}` : '' });
    if (left <= 0 && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
  let ended = 0;
  return {
    row(r) {
      ended++;
      if (r.outcome === 'failed' || r.outcome === 'unknown') {
        if (r.outcome === 'failed') failed++;
        else unknown++;
        multi.log(`${io.fold(lineOf(r))}\n`);
      }
      const seconds = (Date.now() - started) / 1000;
      bar.update(ended, { problems: problems(), rate: seconds > 0 ? (ended / seconds).toFixed(1) : '0' });
    },
    note: (l) => multi.log(`${io.fold(l)}\n`),
    waiting(ms) {
      if (stopped) return;
      waitUntil = Math.max(waitUntil, Date.now() + ms);
      tick();
      ticker ??= setInterval(tick, 1000);
      ticker.unref?.();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (ticker) clearInterval(ticker);
      // a last redraw: it prints the lines logged since the previous one (cli-progress buffers them)
      multi.update();
      multi.stop();
    },
  };
}
