// What the runs of the payment commands share (`mpay deposit` and `mpay withdraw`, their initiate and
// process steps): the one-time code read from stdin, and a flow run with its dependencies from the
// Factory, what Ctrl-C says of the journal, and its result printed. Each command's run.ts, beside its
// class, names its Options and its flow (flows/payment.ts, flows/resume.ts, flows/single-step.ts).
import type { PaymentKind } from '../../api/enums.js';
import { UsageError, exitCodes } from '../../api/errors.js';
import type { Factory } from '../../factory.js';
import { otpOf, type Otp } from '../../flows/inputs.js';
import type { FlowDeps, FlowInputs, FlowResult } from '../../flows/types.js';
import type { JournalRecord } from '../../journal/records.js';
import { fromFlowResult } from '../../ui/envelope.js';
import { fitWidth, printResult } from '../../ui/print.js';
import { offeredGateways, transactionSummary } from '../../ui/summary.js';
import { reportingInterrupt } from './interrupt.js';

/** The Options every payment command has. */
export interface FlowRunOptions {
  json?: boolean;
  dryRun?: boolean;
  /** send an amount outside the merchant currency's limits anyway */
  force?: boolean;
  inputs: FlowInputs;
}

/** --otp, or the code read from stdin with --otp-stdin; an empty one is refused before anything is sent. */
export async function otpFrom(
  opts: { otpStdin?: boolean; inputs: FlowInputs },
  f: Factory,
): Promise<Otp | undefined> {
  if (!opts.otpStdin) return opts.inputs.otp;
  const code = (await f.io.readStdin()).trim();
  if (!code)
    throw new UsageError('Nothing on stdin for --otp-stdin', {
      hint: 'printf %s "$CODE" | mpay withdraw … --otp-stdin',
    });
  return otpOf(code);
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
  f: Factory,
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
  const { result, record, offerGateways } = value;
  const out = fromFlowResult(result, record);
  const gateways = offerGateways && result.initiated ? { gateways: offeredGateways(result.initiated) } : {};
  await printResult(f.io, opts.json, out, () => transactionSummary(out, gateways, fitWidth(f.io)));
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
