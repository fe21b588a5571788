// What mpay says when a money-moving command is interrupted: whether the last request was answered, where
// the transaction stands, and the command that continues it, all from what the journal last wrote.
import type { JournalEvent } from '../journal/records.js';
import { historyShowCommand, placeholder, resumeCommand } from './next-command.js';

export function interruptionReport(last: JournalEvent | undefined): string {
  if (!last) return '\nmpay: interrupted; nothing was sent\n';
  const resume = resumeCommand(last);
  return last.outcome === 'sent'
    ? `\nmpay: interrupted while the ${last.step} request of ${last.reference} was in flight: it may have been applied\n` +
        `hint: \`${historyShowCommand(last)}\` shows what is known; \`${resume}\` continues, and the API refuses a step already applied\n`
    : last.step === 'otp' && last.outcome === 'ok'
      ? `\nmpay: interrupted after the one-time code of ${last.reference} was sent; nothing was sent after it\n` +
        `hint: continue with that code: \`${resumeCommand(last, undefined, ['--otp', placeholder('CODE')])}\`\n`
      : `\nmpay: interrupted after the ${last.step} step of ${last.reference} (${last.outcome}); nothing more was sent\n` +
        `hint: continue with \`${resume}\`\n`;
}
