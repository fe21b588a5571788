// A payment command's run (`mpay deposit` and `mpay withdraw`, their initiate and process steps): its flow
// run with its dependencies, what Ctrl-C says of the journal (reportingInterrupt, flows/standing.ts),
// and its result printed. Each command's run.ts names its Options and its flow (flows/payment/payment.ts,
// flows/payment/resume.ts, flows/payment/single-step.ts) and hands them to runFlow with a FlowSide
// (commands/shared/flow-run.ts): the IO, the Factory's part, and the printing of ui/.
import type { PaymentKind } from '../../api/enums.js';
import { exitCodes } from '../../common/errors.js';
import type { JournalRecord } from '../../journal/records.js';
import { reportingInterrupt, type InterruptIO } from '../standing.js';
import type { FlowDeps, FlowInputs, FlowResult, FlowSettings } from '../types.js';

/** The Options every payment command has. */
export interface FlowRunOptions {
  json?: boolean;
  dryRun?: boolean;
  /** send an amount outside the merchant currency's limits anyway */
  force?: boolean;
  inputs: FlowInputs;
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
