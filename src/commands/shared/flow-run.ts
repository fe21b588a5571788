// What the runs of the payment commands share (`mpay deposit` and `mpay withdraw`, their initiate and
// process steps): the one-time code read from stdin, and the side of a flow's run (flows/payment/payment-run.ts,
// runFlow) that the Factory, the IO and ui/ give: its dependencies and its result printed.
import { UsageError } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import { otpOf, type Otp } from '../../flows/payment/inputs.js';
import type { FlowSide } from '../../flows/payment/payment-run.js';
import type { FlowInputs } from '../../flows/types.js';
import { fromFlowResult } from '../../ui/envelope.js';
import { fitWidth, printResult } from '../../ui/print.js';
import { offeredGateways, transactionSummary } from '../../ui/summary.js';

export type { FlowRunOptions } from '../../flows/payment/payment-run.js';

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

/** The side of a payment flow's run that the Factory, the IO and ui/ give. */
export function flowSide(f: Factory): FlowSide {
  return {
    io: f.io,
    isStep: f.isStep,
    flowDeps: (opts) => f.flowDeps(opts),
    printRan: async ({ result, record, offerGateways }, json) => {
      const out = fromFlowResult(result, record);
      const gateways =
        offerGateways && result.initiated ? { gateways: offeredGateways(result.initiated) } : {};
      await printResult(f.io, json, out, () => transactionSummary(out, gateways, fitWidth(f.io)));
    },
  };
}
