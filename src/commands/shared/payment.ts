// `mpay deposit` / `mpay withdraw` (the whole flow, or --resume) and their `initiate` step.
import type { PaymentKind } from '../../api/enums.js';
import { UsageError } from '../../api/errors.js';
import type { Factory } from '../../factory.js';
import type { FlowInputs } from '../../flows/types.js';
import { fitWidth, printResult } from '../../ui/print.js';
import { reportingInterrupt } from './interrupt.js';
import { resumeCommand } from '../../flows/next-command.js';
import { fromFlowResult } from '../../ui/envelope.js';
import { offeredGateways, transactionSummary } from '../../ui/summary.js';
import { otpOf, type Otp } from '../../flows/inputs.js';

export interface PaymentOptions {
  json?: boolean;
  dryRun?: boolean;
  /** send an amount outside the merchant currency's limits anyway */
  force?: boolean;
  /** pick up a stopped flow (hash token or reference) */
  resume?: string;
  /** read the one-time code from stdin (withdraw) */
  otpStdin?: boolean;
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

export async function runPayment(kind: PaymentKind, opts: PaymentOptions, f: Factory): Promise<void> {
  const { runPaymentFlow } = await import('../../flows/payment.js');
  const { resumeFlow } = await import('../../flows/resume.js');
  const inputs = { ...opts.inputs, otp: await otpFrom(opts, f) };
  const deps = await f.flowDeps({ dryRun: opts.dryRun, force: opts.force, command: `mpay ${kind}` });
  const result = await reportingInterrupt(
    f,
    () => deps.journal,
    () => (opts.resume ? resumeFlow(kind, opts.resume, inputs, deps) : runPaymentFlow(kind, inputs, deps)),
  );
  const out = fromFlowResult(result);
  await printResult(f.io, opts.json, out, () => transactionSummary(out, {}, fitWidth(f.io)));
}

export async function runInitiate(
  kind: PaymentKind,
  opts: Omit<PaymentOptions, 'resume' | 'otpStdin'>,
  f: Factory,
): Promise<void> {
  const { initiateOnly } = await import('../../flows/payment.js');
  const deps = await f.flowDeps({ dryRun: opts.dryRun, force: opts.force, command: `mpay ${kind}` });
  const p = await reportingInterrupt(
    f,
    () => deps.journal,
    () => initiateOnly(kind, opts.inputs, deps),
  );
  const out = fromFlowResult({
    kind,
    reference: p.customer_transaction_id ?? '',
    hash_token: p.has_token,
    status: 'initiated',
    initiated: p,
    // mpay journaled it: the flow picks it up at the gateway.
    resume: resumeCommand({ kind, reference: p.customer_transaction_id ?? '', place: deps.place }),
  });
  await printResult(f.io, opts.json, out, () =>
    transactionSummary(out, { gateways: offeredGateways(p) }, fitWidth(f.io)),
  );
}
