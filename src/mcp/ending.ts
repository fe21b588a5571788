// What `mpay mcp` says of a call cut off by its ending (the end of input, or a signal), as the CLI's first
// Ctrl-C does: the request in flight finished and was journaled, no step started after it. The words come
// from the journal's last line of the call: what was sent, where the transaction stands, and how to
// continue it, as the tool to call and as the command line for a shell.
import { CancelledError } from '../common/errors.js';
import type { JournalEvent, JournalRecord } from '../journal/records.js';
import { historyShowCommand, resumeCommand } from '../flows/standing.js';

/** The tools that continue a transaction whose last journal line is `last`, and the command line. */
export function continuation(last: JournalEvent): { tools: string; cli: string } {
  const key = last.reference;
  if (last.outcome === 'sent')
    return {
      tools: `the transaction tool with key ${key} shows what is known; then the step tools with key ${key} continue it (the API refuses a step already applied)`,
      cli: resumeCommand(last),
    };
  if (last.step === 'otp' && last.kind === 'withdraw')
    return {
      tools: `the withdraw_process tool with key ${key} and the code the customer received as otp`,
      cli: resumeCommand(last, undefined, ['--otp-stdin']),
    };
  const process = `${last.kind}_process`;
  return {
    tools:
      last.step === 'status'
        ? `the ${process} tool with key ${key}`
        : `the status_update tool with key ${key} (wallet_update first when its gateway needs it), then ${process} with key ${key}`,
    cli: resumeCommand(last),
  };
}

/** The steps of a record that were sent, with their outcome: `initiate (ok), status (ok), otp (ok)`. */
const sentSteps = (r: JournalRecord | undefined) =>
  (r?.steps ?? [])
    .filter((s) => s.step !== 'gateway' && s.step !== 'resolved')
    .map((s) => `${s.step} (${s.outcome})`)
    .join(', ');

/** The line stderr gets at the ending for a call in flight: the transaction and how to continue it. */
export function inFlightLine(tool: string, last: JournalEvent | undefined): string {
  if (!last) return `${tool}: nothing was sent yet, and no step starts now`;
  const { tools, cli } = continuation(last);
  const where =
    last.outcome === 'sent'
      ? `the ${last.step} request of ${last.reference} is in flight: it finishes and is journaled with its answer, and no step starts after it`
      : `${last.reference} stands after its ${last.step === 'gateway' ? 'initiate' : last.step} (${last.step === 'gateway' ? 'ok' : last.outcome}): no step starts after it`;
  return `${tool}: ${where}; \`${historyShowCommand(last)}\` tells where it stands; continue with ${tools}, or from a shell \`${cli}\``;
}

/** A call's CancelledError at the ending, said from the journal: what was sent, and how to continue. */
export function endedError(
  why: string,
  tool: string,
  last: JournalEvent | undefined,
  record: JournalRecord | undefined,
): CancelledError {
  if (!last)
    return new CancelledError(`The server is ending (${why}): ${tool} was stopped, and nothing was sent`, {
      hint: 'Start mpay mcp again (the client restarts it) and call the tool again',
    });
  const { tools, cli } = continuation(last);
  const sent = sentSteps(record);
  return new CancelledError(
    `The server is ending (${why}): ${last.reference} was stopped${sent ? ` after what was sent: ${sent}` : ''}; ${last.outcome === 'sent' ? `the answer to its ${last.step} request is not known, and ` : ''}nothing more was sent`,
    { hint: `Continue it with ${tools}; from a shell: \`${cli}\`` },
  );
}
