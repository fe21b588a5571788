// Ctrl-C while a money-moving command waits on the network (at a prompt, the prompt itself answers
// "cancelled"). The signal stops the command at once; before it goes, mpay says what the journal knows:
// whether the last request was answered, where the transaction stands, and the command that continues it.
// Exit 130, as for any cancel.
import type { Factory } from '../../factory.js';
import type { JournalLike } from '../../journal/journal.js';
import { historyShowCommand, resumeCommand } from '../../flows/next-command.js';

/** Installs the SIGINT handler for the run of `work`, and removes it after. */
export async function reportingInterrupt<T>(
  f: Factory,
  journal: () => JournalLike | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const onSigint = () => {
    const e = journal()?.lastAppended;
    if (!e) f.io.stderr.write('\nmpay: interrupted; nothing was sent\n');
    else {
      const resume = resumeCommand(e);
      f.io.stderr.write(
        e.outcome === 'sent'
          ? `\nmpay: interrupted while the ${e.step} request of ${e.reference} was in flight: it may have been applied\n` +
              `hint: \`${historyShowCommand(e)}\` shows what is known; \`${resume}\` continues, and the API refuses a step already applied\n`
          : `\nmpay: interrupted after the ${e.step} step of ${e.reference} (${e.outcome}); nothing more was sent\n` +
              `hint: continue with \`${resume}\`\n`,
      );
    }
    process.exit(130);
  };
  // First in line: conf's atomic writes load when-exit, whose SIGINT listener re-raises the signal and
  // would kill the process before this one says what the journal knows.
  process.prependListener('SIGINT', onSigint);
  try {
    return await work();
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
