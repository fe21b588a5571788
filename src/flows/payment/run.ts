// A payment command's run (`mpay deposit` and `mpay withdraw`, their initiate and process steps): its flow
// run with its dependencies, what Ctrl-C says of the journal (reportingInterrupt, flows/interrupted.ts),
// and its result printed. Each command's run.ts names its Options and its flow (flows/payment.ts,
// flows/resume.ts, flows/single-step.ts) and hands them to runFlow with a FlowSide
// (commands/shared/flow-run.ts): the IO, the Factory's part, and the printing of ui/.
import type { PaymentKind } from '../../api/enums.js';
import { CancelledError, exitCodes } from '../../api/errors.js';
import type { JournalLike } from '../../journal/journal.js';
import type { JournalRecord } from '../../journal/records.js';
import { interruption, interruptionReport } from '../interrupted.js';
import type { FlowDeps, FlowInputs, FlowResult, FlowSettings } from '../types.js';

/** The Options every payment command has. */
export interface FlowRunOptions {
  json?: boolean;
  dryRun?: boolean;
  /** send an amount outside the merchant currency's limits anyway */
  force?: boolean;
  inputs: FlowInputs;
}

/** What the IO gives a run that Ctrl-C may interrupt: its lines, and the interruptions. */
interface InterruptIO {
  note(line: string): void;
  interrupts: {
    signal: AbortSignal;
    graceful<T>(work: () => Promise<T>, again?: () => void): Promise<T>;
  };
}

/** What a payment command's run needs of the command (commands/shared/flow-run.ts makes it). */
export interface FlowSide {
  io: InterruptIO & { exitCode: number };
  /** a step of `mpay run`: the run, not the step, ends as interrupted */
  isStep: boolean;
  flowDeps(opts: FlowSettings): Promise<FlowDeps>;
  /** the flow's result: a summary, or JSON */
  printRan(ran: Ran, json?: boolean): Promise<void>;
}

/** What a flow ended with: its result, the record it continued, and whether to list the gateways offered. */
export interface Ran {
  result: FlowResult;
  record?: JournalRecord;
  offerGateways?: boolean;
}

/** Runs a payment flow with the run's dependencies and prints its result (a summary, or JSON). */
export async function runFlow(
  kind: PaymentKind,
  opts: Omit<FlowRunOptions, 'inputs'>,
  f: FlowSide,
  flow: (deps: FlowDeps) => Promise<Ran>,
): Promise<void> {
  const deps = {
    ...(await f.flowDeps({ dryRun: opts.dryRun, force: opts.force, command: `mpay ${kind}` })),
    stop: f.io.interrupts.signal,
  };
  const { value, interrupted } = await reportingInterrupt(
    f,
    () => deps.journal,
    () => flow(deps),
  );
  await f.printRan(value, opts.json);
  // Ctrl-C came while the flow's last request was in flight: it was answered and journaled, and nothing
  // was left to send. The command ends as interrupted (130) all the same; a step of `mpay run` leaves that
  // to the run.
  if (interrupted) {
    f.io.note(
      'mpay: interrupted: the request in flight was answered and journaled; nothing was left to send',
    );
    if (!f.isStep) f.io.exitCode = exitCodes.cancelled;
  }
}

// Ctrl-C while a money-moving command runs (at a prompt, the prompt itself answers "cancelled"). The first
// lets the request in flight finish, journaled with its answer, and starts no step after it (the flow's
// deps.stop); the run then ends with 130, saying what the journal knows and the command that continues
// (flows/interrupted.ts). A second ends the run at once (the IO), saying what was in flight.

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
