// Where a run stands and what to run next, said in one place. Every command line mpay prints for a person
// to run next (a resume after Ctrl-C or a lost answer, the step after a one-time code, a batch to run
// again) is built here, complete: it repeats the flags that chose the profile, environment and server, so
// that it reaches the transaction's own server whatever MPAY_PROFILE, MPAY_ENV or MPAY_BASE_URL say where
// it is pasted, and every word is quoted for the shell. And what is said with it: where a transaction
// stands when a flow stops after initiate (keepingTrack), when a request's answer was lost
// (ambiguityHint, for flows/gate/journaled.ts), and when a money-moving command is interrupted
// (reportingInterrupt, interruption, interruptionReport), all from what the journal last wrote. The
// signals themselves are the IO's (io/interrupts.ts).
import { commandLine, shownValue } from '../common/shell-words.js';
import { CancelledError, MpayError, NetworkError } from '../common/errors.js';
import type { JournalLike } from '../journal/journal.js';
import {
  notResumable,
  placeArgs,
  stepDone,
  type JournalEvent,
  type JournalRecord,
  type Kind,
  type Place,
  type Step,
} from '../journal/records.js';
import { title, type FlowDeps } from './types.js';

// ---- What to run next

/** A word that stands for a value the person fills in (`<CODE>`): printed bare, never quoted. */
export const placeholder = (name: string) => ({ placeholder: name });
type Word = string | { placeholder: string };

/** `words` (the command, its arguments), then the flags of `place`, as one line. */
export function runAgain(words: Word[], place: Place | undefined, opts: { local?: boolean } = {}): string {
  // Commands of mpay's own files (history) take the profile and environment, not a server.
  const at = place ? (opts.local ? placeArgs(place).slice(0, 4) : placeArgs(place)) : [];
  return [...words, ...at]
    .map((w) => (typeof w === 'string' ? commandLine([w]) : `<${w.placeholder}>`))
    .join(' ');
}

/** The command that continues a journaled transaction where it lives. */
export function resumeCommand(
  r: Pick<JournalRecord, 'kind' | 'reference' | 'place'>,
  fallback?: Place,
  extra: Word[] = [],
): string {
  return runAgain(['mpay', r.kind, '--resume', r.reference, ...extra], r.place ?? fallback);
}

/**
 * The hint that continues a withdrawal with the code its customer received: the code read from stdin, so
 * that it stays out of the shell's history (as --otp would not).
 */
export function codeHint(command: string): string {
  return `Continue it with that code, read from stdin so that it stays out of your shell's history (type it, then Enter and Ctrl-D, or pipe it in): \`${command}\``;
}

/** `mpay history show REF` for a journaled transaction, with the profile and environment it lives in. */
export function historyShowCommand(r: Pick<JournalRecord, 'reference' | 'place'>, fallback?: Place): string {
  return runAgain(['mpay', 'history', 'show', r.reference], r.place ?? fallback, { local: true });
}

/** The single step that finishes a withdrawal with its one-time code. */
export function withdrawProcessCommand(hash: string, place: Place | undefined): string {
  return runAgain(['mpay', 'withdraw', 'process', hash, '--otp', placeholder('CODE')], place);
}

/**
 * `mpay history resolve REF --check`: asks the API about an initiate that had no answer, by sending it
 * again with the same reference (a money request, through the gate).
 */
export function historyCheckCommand(r: Pick<JournalRecord, 'reference' | 'place'>, fallback?: Place): string {
  return runAgain(['mpay', 'history', 'resolve', r.reference, '--check'], r.place ?? fallback);
}

/**
 * `mpay history resolve REF --as <HOW>`: how a person settles a request that had no answer. With the
 * server too: resolve finds the record as a money command does (its --check is one), at its own place.
 */
export function historyResolveCommand(
  r: Pick<JournalRecord, 'reference' | 'place'>,
  fallback?: Place,
  how: Word = placeholder('not-sent|landed|abandoned'),
): string {
  return runAgain(['mpay', 'history', 'resolve', r.reference, '--as', how], r.place ?? fallback);
}

// ---- A request sent whose answer was lost (flows/gate/journaled.ts): what may have happened, and what to run.

/** The hint of an ambiguous failure: the request went, its answer did not come; what shows and continues it. */
export function ambiguityHint(
  deps: FlowDeps,
  kind: Kind,
  step: Step,
  reference: string,
  hash?: string,
): string {
  const r = { kind, reference, place: deps.place };
  const ids = `reference ${shownValue(reference)}${hash ? `, hash token ${shownValue(hash)}` : ''}`;
  const show = historyShowCommand(r);
  if (step === 'initiate') {
    return `The connection failed after the request was sent, so the ${title(kind)} may exist (${ids}). Nothing was re-sent. \`${show}\` shows what is known; \`${resumeCommand(r)}\` sends initiate again with the same reference, which the API refuses as a duplicate if the first one arrived.`;
  }
  return `The connection failed after the ${step} request was sent, so it may have been applied (${ids}). Nothing was re-sent. Check with \`${show}\` before \`${resumeCommand(r)}\`; a step already applied answers "not initiated" (exit 5).`;
}

// ---- Where a transaction stands when a flow stops after initiate: a failure, a wrong one-time code, or
// Ctrl-C at a prompt. The error then says what the journal knows (reference, hash token, status) and the
// exact command that continues it, so that nobody is left with a transaction and no way forward.

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
    // (a hint that ends its own sentence is not given a second full stop)
    err.hint = `${err.hint ? `${err.hint.replace(/\.$/, '')}. ` : ''}${where}: continue with \`${cmd}\``;
  }
  annotated.add(out as object);
  return out;
}

// ---- What mpay says when a money-moving command is interrupted: whether the last request was answered,
// where the transaction stands, and the command that continues it, all from what the journal last wrote.

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

/** What the IO gives a run that Ctrl-C may interrupt: its lines, and the interruptions. */
export interface InterruptIO {
  note(line: string): void;
  interrupts: {
    signal: AbortSignal;
    graceful<T>(work: () => Promise<T>, again?: () => void): Promise<T>;
  };
}

// Ctrl-C while a money-moving command runs (at a prompt, the prompt itself answers "cancelled"). The first
// lets the request in flight finish, journaled with its answer, and starts no step after it (the flow's
// deps.stop); the run then ends with 130, saying what the journal knows and the command that continues
// (interruption, above). A second ends the run at once (the IO), saying what was in flight.

/**
 * Runs `work` with the first interruption left to it; `interrupted` says, after it, whether one came (the
 * work then ended early with a CancelledError that names where the journal stands, or finished).
 */
export async function reportingInterrupt<T>(
  f: { io: InterruptIO },
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
