// Ctrl-C while a money-moving command waits on the network (at a prompt, the prompt itself answers
// "cancelled"): the IO ends the run at once (exit 130), and before it goes, this says what the journal
// knows (flows/interrupted.ts).
import type { Factory } from '../../factory.js';
import type { JournalLike } from '../../journal/journal.js';
import { interruptionReport } from '../../flows/interrupted.js';

/** Reports an interruption of `work` from its journal. */
export async function reportingInterrupt<T>(
  f: Factory,
  journal: () => JournalLike | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const { signal } = f.io.interrupts;
  // Lines for a person (the IO folds them to a terminal's width, the resume command pasteable).
  const onAbort = () => f.io.note(interruptionReport(journal()?.lastAppended).replace(/\n$/, ''));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
