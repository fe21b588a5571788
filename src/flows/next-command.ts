// Every command line mpay prints for a person to run next (a resume after Ctrl-C or a lost answer, the
// step after a one-time code, a batch to run again) is built here, complete: it repeats the flags that
// chose the profile, environment and server, so that it reaches the transaction's own server whatever
// MPAY_PROFILE, MPAY_ENV or MPAY_BASE_URL say where it is pasted, and every word is quoted for the shell.
import { commandLine } from '../api/shell-words.js';
import { placeArgs, type JournalRecord, type Place } from '../journal/records.js';

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
