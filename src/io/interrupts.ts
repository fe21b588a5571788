// Ctrl-C and SIGTERM. The IO object owns them: one handler for the process, installed by the entry's
// IO (systemIO), and run functions see an interruption as an AbortSignal. The first interruption aborts
// the signal; whoever listens says what it knows (what the journal holds, how to resume) as the signal's
// listeners run, synchronously; then the run ends with 130 (143 for SIGTERM). Inside `graceful()` the
// first interruption only aborts the signal, so that the work winds down by itself (a batch lets the rows
// in flight finish, the sandbox closes its server), and a second ends the run at once.
export type Interruption = 'SIGINT' | 'SIGTERM';

export interface Interrupts {
  /** aborted at the run's first interruption; its reason is the signal's name */
  readonly signal: AbortSignal;
  /**
   * Runs `work` with the first interruption left to it (it watches `signal`); `again` runs at a second,
   * just before the run ends.
   */
  graceful<T>(work: () => Promise<T>, again?: () => void): Promise<T>;
  /**
   * Holds the run while a money step is open (money-gate.ts); the function returned lets go, once.
   */
  hold(): () => void;
  /**
   * Whether graceful work runs (a payment's steps, a batch, a server) or a money step is held: what a
   * reader gone must not cut.
   */
  busy(): boolean;
  /** A server's run: waits for the first interruption, then `stop` (graceful: a second ends the run). */
  untilInterrupted(stop: (reason: Interruption) => Promise<void>): Promise<void>;
  /** an interruption: the process's signal (systemIO), or a test's */
  fire(name: Interruption): void;
  /**
   * Runs `end` (synchronous) at the next interruption, before anyone says anything of it: what is drawn on
   * the terminal and would garble the notes (the spinner) ends its line first. The function returned
   * unregisters it.
   */
  beforeNotes(end: () => void): () => void;
  /**
   * Runs `cleanup` (synchronous) should the run end before the work that registered it undoes it itself
   * (a spooled stdin removed, a keyring child killed): an interruption, a reader of stdout gone, or, for
   * the process's IO, any exit of the process (an error mpay did not expect); the function returned
   * unregisters it.
   */
  atExit(cleanup: () => void): () => void;
  /** Runs the atExit cleanups now, each once (systemIO calls it at the process's exit). */
  cleanUp(): void;
  /**
   * Ends the run now with `code`, the atExit cleanups run first: the way out for whatever ends a run
   * before its work does (a reader of stdout gone, an interruption).
   */
  end(code: number): void;
}

export function makeInterrupts(
  /** ends the run: process.exit for the process's IO */
  exit: (code: number) => void,
  /** while graceful work runs, the process's other listeners are set aside (returns what puts them back) */
  setAside: () => () => void = () => () => {},
): Interrupts {
  const controller = new AbortController();
  const againHandlers: (() => void)[] = [];
  const exitHandlers = new Set<() => void>();
  const drawn = new Set<() => void>();
  let depth = 0;
  let holds = 0;
  let count = 0;
  const cleanUp = () => {
    for (const h of [...exitHandlers]) {
      exitHandlers.delete(h);
      try {
        h();
      } catch {
        // the run ends all the same
      }
    }
  };
  const end = (code: number) => {
    cleanUp();
    exit(code);
  };
  const graceful: Interrupts['graceful'] = async (work, again) => {
    depth++;
    if (again) againHandlers.push(again);
    const restore = depth === 1 ? setAside() : () => {};
    try {
      return await work();
    } finally {
      depth--;
      if (again) againHandlers.splice(againHandlers.indexOf(again), 1);
      restore();
    }
  };
  return {
    signal: controller.signal,
    graceful,
    hold() {
      holds++;
      let held = true;
      return () => {
        if (held) holds--;
        held = false;
      };
    },
    busy: () => depth > 0 || holds > 0,
    untilInterrupted(stop) {
      return graceful(async () => {
        if (!controller.signal.aborted)
          await new Promise((resolve) =>
            controller.signal.addEventListener('abort', resolve, { once: true }),
          );
        await stop(controller.signal.reason as Interruption);
      });
    },
    fire(name) {
      count++;
      for (const h of [...drawn]) {
        drawn.delete(h);
        try {
          h();
        } catch {
          // the notes are said all the same
        }
      }
      if (count === 1) controller.abort(name);
      if (count === 1 && depth > 0) return;
      if (count > 1) for (const h of [...againHandlers]) h();
      end(name === 'SIGTERM' ? 143 : 130);
    },
    beforeNotes(h) {
      drawn.add(h);
      return () => drawn.delete(h);
    },
    end,
    cleanUp,
    atExit(cleanup) {
      exitHandlers.add(cleanup);
      return () => exitHandlers.delete(cleanup);
    },
  };
}
