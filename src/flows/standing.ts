// Where a transaction stands when a flow stops after initiate: a failure, a wrong one-time code, or
// Ctrl-C at a prompt. The error then says what the journal knows (reference, hash token, status) and the
// exact command that continues it, so that nobody is left with a transaction and no way forward.
import { shownValue } from '../api/shell-words.js';
import { CancelledError, MpayError, NetworkError } from '../api/errors.js';
import { notResumable, stepDone, type JournalRecord } from '../journal/records.js';
import { codeHint, placeholder, resumeCommand } from './next-command.js';
import { title, type FlowDeps } from './types.js';

const annotated = new WeakSet<object>();

/** Runs the steps after initiate; a failure leaves with where the transaction stands. */
export async function keepingTrack<T>(
  record: JournalRecord,
  deps: FlowDeps,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw standing(err, record, deps);
  }
}

function standing(err: unknown, record: JournalRecord, deps: FlowDeps): unknown {
  if (deps.client.dryRun || !err || typeof err !== 'object' || annotated.has(err)) return err;
  // Only a transaction the journal holds can be resumed: one mpay did not start is left as it is.
  const now = deps.journal.find(record.reference);
  // Nothing to continue: a transaction mpay did not start (or only sent steps to), or one already processed.
  if (!now || stepDone(now, 'processed') || notResumable(now)) return err;
  const where = `The ${title(record.kind)} ${record.reference}${now.hash_token ? ` (hash token ${shownValue(now.hash_token)})` : ''} is ${now.status ?? 'initiated'}`;
  const resume = resumeCommand(now, deps.place);
  let out = err;
  if ((err as Error).name === 'ExitPromptError') {
    // Ctrl-C at the code's prompt: the code request went, and was answered; only the confirmation did not
    const code = now.kind === 'withdraw' && stepDone(now, 'otp') && !stepDone(now, 'processed');
    out = code
      ? new CancelledError(
          `cancelled at the one-time code. ${where}: the code was sent${now.code_request ? ` to ${now.code_request.customer_email}` : ''}, and nothing was sent after it`,
          {
            hint: codeHint(resumeCommand(now, deps.place, ['--otp-stdin'])),
          },
        )
      : new CancelledError(`cancelled. ${where}; nothing more was sent`, {
          hint: `Continue it with \`${resume}\``,
        });
  } else if (err instanceof MpayError) {
    // A transaction no longer initiated, or a request whose answer was lost, has a hint of its own.
    if (err.kind === 'state' || err.kind === 'cancelled' || (err instanceof NetworkError && err.ambiguous))
      return err;
    // the value the error asks for is in the command, so that it is not refused the same way again
    const cmd = err.fields.otp
      ? resumeCommand(now, deps.place, ['--otp', placeholder('CODE')])
      : err.fields.gateway_id
        ? resumeCommand(now, deps.place, ['--gateway', placeholder('ID')])
        : resume;
    err.hint = `${err.hint ? `${err.hint}. ` : ''}${where}: continue with \`${cmd}\``;
  }
  annotated.add(out as object);
  return out;
}
