// What a tool runs: the flows the commands run, by the money step of an endpoint (api/endpoints.ts), the
// whole flows of a kind, and a read of any endpoint that moves no money. A money tool's gate and one-time
// code come from the call (mcp/mcp-server.ts, mcp/call.ts).
import type { PaymentKind, TransactionStatus } from '../api/enums.js';
import type { Endpoint, MoneyStep } from '../api/endpoints.js';
import { otpOf } from '../flows/payment/inputs.js';
import type { FlowDeps, FlowResult } from '../flows/types.js';
import type { JournalRecord } from '../journal/records.js';
import { fromFlowResult, stepEnvelope } from '../ui/envelope.js';
import { flowInputs } from './arguments.js';

/** What a tool's run gets: the flow's dependencies of this call, and the questions it may ask the person. */
export interface ToolCall {
  deps: () => Promise<FlowDeps>;
  /** the one-time code of a withdrawal, asked through elicitation; undefined when the client cannot ask */
  askCode(email: string): Promise<string | undefined>;
  now(): Date;
  /** doctor: its checks, with the API-key check through the call's gate (or skipped, read-only) */
  doctor(checkApiKey: boolean): Promise<unknown>;
}

export type Run = (args: Record<string, unknown>, call: ToolCall) => Promise<unknown>;

type Ran = { result: FlowResult; record?: JournalRecord };

/** A whole withdrawal or its processed step: the code, given or asked, finishes it. */
async function withCode(
  first: Ran,
  a: Record<string, unknown>,
  call: ToolCall,
  deps: FlowDeps,
): Promise<Ran> {
  const { result } = first;
  if (result.next !== 'otp' || !result.hash_token) return first;
  const record = deps.journal.find(result.reference) ?? first.record;
  const email = record?.code_request?.customer_email ?? (a.email as string | undefined) ?? 'the customer';
  const code = await call.askCode(email);
  if (code === undefined) {
    // No code (the client cannot ask, or the person gave none): the assistant gives it to withdraw_process.
    return {
      ...first,
      result: {
        ...result,
        message: `A one-time code was sent to ${email}. Ask the person for it, then call withdraw_process with key ${result.reference} and otp`,
      },
    };
  }
  const { processByKey } = await import('../flows/payment/single-step.js');
  const done = await processByKey(result.reference, 'withdraw', { otp: otpOf(code) }, deps, call.now());
  // what the flow learned before the code (its initiate, gateway, status update), and the end
  return {
    record: done.record,
    result: { ...result, ...done.result, next: undefined, resume: undefined, message: undefined },
  };
}

/** A flow that ends with the processed step: a withdrawal's code, given or asked, finishes it. */
async function paying(
  kind: PaymentKind,
  a: Record<string, unknown>,
  call: ToolCall,
  start: (deps: FlowDeps) => Promise<Ran>,
) {
  const deps = await call.deps();
  const first = await start(deps);
  const r = kind === 'withdraw' ? await withCode(first, a, call, deps) : first;
  return fromFlowResult(r.result, r.record);
}

/** A whole payment of a kind, as `mpay deposit` or `mpay withdraw` runs it. */
export const flowRun =
  (kind: PaymentKind): Run =>
  async (a, call) => {
    const { runPaymentFlow } = await import('../flows/payment/payment.js');
    return paying(kind, a, call, async (deps) => ({
      result: await runPaymentFlow(kind, flowInputs(a), deps),
    }));
  };

/** The gateway of a step on a journaled transaction: the argument, or the one the journal recorded. */
async function onTransaction(a: Record<string, unknown>, call: ToolCall) {
  const { stepTarget, stepGateway } = await import('../flows/payment/single-step.js');
  const { record, deps } = stepTarget(a.key as string, undefined, await call.deps(), call.now());
  const gateway = stepGateway(record, a.gateway === undefined ? undefined : Number(a.gateway));
  return { record, deps, gateway };
}

/**
 * The run of each money step, as the single-step commands run it. The status and wallet updates serve
 * both kinds (the journal's record says which); initiate and processed are the endpoint's own kind.
 */
export const stepRuns: Record<MoneyStep, (e: Endpoint) => Run> = {
  initiate: (e) => async (a, call) => {
    const { initiateStage } = await import('../flows/payment/payment.js');
    const result = await initiateStage(e.money!.kind!, flowInputs(a), await call.deps());
    return fromFlowResult(result, undefined);
  },
  processed: (e) => async (a, call) => {
    const { processByKey } = await import('../flows/payment/single-step.js');
    const kind = e.money!.kind!;
    return paying(kind, a, call, (deps) =>
      processByKey(a.key as string, kind, flowInputs(a), deps, call.now()),
    );
  },
  status: () => async (a, call) => {
    const { statusStep } = await import('../flows/payment/steps.js');
    const { record, deps, gateway } = await onTransaction(a, call);
    const status = a.status as TransactionStatus;
    const r = await statusStep(record, record.hash_token!, gateway, status, deps);
    return stepEnvelope(record, gateway, { status: r.status, status_update: r });
  },
  wallet: () => async (a, call) => {
    const { walletStep } = await import('../flows/payment/steps.js');
    const { record, deps, gateway } = await onTransaction(a, call);
    const w = await walletStep(record, record.hash_token!, gateway, deps);
    return stepEnvelope(record, gateway, { status: 'initiated', wallet: w });
  },
};

/** A read of an endpoint that moves no money: its answer's data, checked against the table's schema. */
export const readRun =
  (e: Endpoint): Run =>
  async (_a, call) => {
    const { failureError, successData } = await import('../api/response.js');
    const { client } = await call.deps();
    const what = `${e.method} /${e.path}`;
    const res = await client.raw({ method: e.method, path: e.path, encoding: e.encoding, bearer: e.bearer });
    if (res.status >= 300) throw failureError(what, res.status, res.contentType, res.text);
    return successData(what, res.status, res.contentType, res.text, e.data).data;
  };
