// What mpay says when a money-moving command is interrupted: whether the last request was answered, where
// the transaction stands, and the command that continues it, all from what the journal last wrote.
import type { JournalEvent } from '../journal/records.js';
import { codeHint, historyShowCommand, resumeCommand } from './next-command.js';

/** The interruption in words (a message and the hint that continues), from the journal's last line. */
export function interruption(last: JournalEvent | undefined): { message: string; hint?: string } {
  if (!last) return { message: 'interrupted; nothing was sent' };
  const resume = resumeCommand(last);
  return last.outcome === 'sent'
    ? {
        message: `interrupted while the ${last.step} request of ${last.reference} was in flight: it may have been applied`,
        hint: `\`${historyShowCommand(last)}\` shows what is known; \`${resume}\` continues, and the API refuses a step already applied`,
      }
    : last.step === 'otp' && last.outcome === 'ok'
      ? {
          message: `interrupted after the one-time code of ${last.reference} was sent; nothing was sent after it`,
          hint: codeHint(resumeCommand(last, undefined, ['--otp-stdin'])),
        }
      : {
          // the gateway's line is mpay's own note of the choice, not a request: the request before it is
          message: `interrupted after the ${last.step === 'gateway' ? 'initiate' : last.step} request of ${last.reference} was answered (${last.step === 'gateway' ? 'ok' : last.outcome}); nothing more was sent`,
          hint: `continue with \`${resume}\``,
        };
}

export function interruptionReport(last: JournalEvent | undefined): string {
  const { message, hint } = interruption(last);
  return `\nmpay: ${message}\n${hint ? `hint: ${hint}\n` : ''}`;
}
