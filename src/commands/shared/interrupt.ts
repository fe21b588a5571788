// Ctrl-C while a money-moving command runs (at a prompt, the prompt itself answers "cancelled"). The first
// lets the request in flight finish, journaled with its answer, and starts no step after it (the flow's
// deps.stop); the run then ends with 130, saying what the journal knows and the command that continues
// (flows/interrupted.ts). A second ends the run at once (the IO), saying what was in flight.
import { CancelledError } from '../../api/errors.js';
import type { Factory } from '../../factory.js';
import type { JournalLike } from '../../journal/journal.js';
import { interruption, interruptionReport } from '../../flows/interrupted.js';

/**
 * Runs `work` with the first interruption left to it; `interrupted` says, after it, whether one came (the
 * work then ended early with a CancelledError that names where the journal stands, or finished).
 */
export async function reportingInterrupt<T>(
  f: Factory,
  journal: () => JournalLike | undefined,
  work: () => Promise<T>,
): Promise<{ value: T; interrupted: boolean }> {
  const { signal } = f.io.interrupts;
  const last = () => journal()?.lastAppended;
  const onAbort = () => {
    const l = last();
    f.io.note(
      `mpay: interrupted: ${l?.outcome === 'sent' ? `the ${l.step} request in flight finishes and is journaled with its answer; ` : ''}no step starts after it (Ctrl-C again to stop now)`,
    );
  };
  // Lines for a person (the IO folds them to a terminal's width, the resume command pasteable).
  const again = () => f.io.note(interruptionReport(last()).trim());
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const value = await f.io.interrupts.graceful(work, again);
    return { value, interrupted: signal.aborted };
  } catch (err) {
    if (signal.aborted && err instanceof CancelledError) {
      const { message, hint } = interruption(last());
      throw new CancelledError(message, { hint });
    }
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
