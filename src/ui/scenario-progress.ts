// What `mpay run` shows while it runs, on stderr: a line before the first step saying what runs (the files,
// their steps, the server, what a failed step does), and on a terminal the step in flight on a line of its
// own, cleared before each step's line is printed and ended before anything else (an interruption's
// report) is said.
import type { StepRecord } from '../flows/scenario/scenario-run.js';
import type { IO } from '../io/io.js';
import { clean } from './output.js';

const clearLine = '\r\u001b[2K';

export interface ScenarioProgress {
  /** a step is about to be sent */
  starting(r: StepRecord): void;
  /** the line in flight taken away, so that what follows starts at the left on a line of its own */
  clear(): void;
  /** the same after an interruption: whatever is on the line (the terminal's ^C too) taken away */
  interrupted(): void;
}

export function scenarioProgress(io: IO, start: string): ScenarioProgress {
  io.note(start);
  if (!io.stderrIsTTY) return { starting: () => {}, clear: () => {}, interrupted: () => {} };
  let drawn = false;
  return {
    starting(r) {
      const text = clean(`… ${r.index}. ${r.step}${r.money ? ' [money]' : ''}`);
      // one line: cut to the terminal's width, so that clearing it clears all of it
      const room = Math.max(10, io.width - 1);
      io.stderr.write(`${clearLine}${text.length > room ? `${text.slice(0, room - 1)}…` : text}`);
      drawn = true;
    },
    clear() {
      if (drawn) io.stderr.write(clearLine);
      drawn = false;
    },
    interrupted() {
      io.stderr.write(clearLine);
      drawn = false;
    },
  };
}
