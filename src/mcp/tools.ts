// The tools `mpay mcp` offers, made from the endpoint table (api/endpoints.ts) and the flows: each
// endpoint that moves no money is a read tool, each money endpoint the tool of its single step (the flow
// of its step runs it), and each kind's money steps together its whole flow; the journal's reads and
// doctor come from the flows alone. A tool's name, what it says it does, whether it moves money and its
// input schema come from the table (its summary, its money step, its request schema's fields, checked as
// the commands' flags are: mcp/arguments.ts). An endpoint no tool offers is in `notTools`, with why.
import * as z from 'zod/mini';
import { historyStatuses, paymentKinds } from '../api/enums.js';
import { endpointList, type Endpoint, type EndpointId, type MoneyStep } from '../api/endpoints.js';
import type { PaymentKind } from '../api/enums.js';
import { UsageError } from '../common/errors.js';
import type { JournalRecord } from '../journal/records.js';
import { fromRecord } from '../ui/envelope.js';
import { argumentsOf, transactionKey } from './arguments.js';
import { flowRun, readRun, stepRuns, type Run } from './runs.js';

export type { ToolCall } from './runs.js';

/** An endpoint of the table, with its id. */
export type Listed = Endpoint & { id: EndpointId };

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** sends a request that moves money (through the gate): left out with --read-only */
  money: boolean;
  /** sends a journaled money request as a check (doctor's API-key check), unless the server is --read-only */
  probes?: boolean;
  input: z.ZodMiniObject;
  run: Run;
  /** the endpoint it sends, or the endpoints of the flow it runs (none: the journal's reads, doctor) */
  endpoints: readonly EndpointId[];
}

/** The endpoints no tool offers, each with why. */
export const notTools: Readonly<Partial<Record<EndpointId, string>>> = {
  tokenGenerate:
    'its answer is the bearer token, a secret no message carries; every call gets one as it needs it',
  publicMerchantCurrencies: 'another path for the list the balances tool reads (merchantCurrencies)',
};

/**
 * The endpoint a payment's flow sends for a step of a kind: the table's first of that step (as
 * api/endpoints.ts moneyEndpointFor reads it).
 */
const stepEndpoint = (list: readonly Listed[], kind: PaymentKind, step: MoneyStep) =>
  list.find((e) => e.money?.step === step && (e.money.kind ?? kind) === kind);

/** Why an endpoint is no tool of its own (its entry in notTools, or what the table says of it), if it is not. */
export function whyNotATool(e: Listed, list: readonly Listed[] = endpointList): string | undefined {
  if (notTools[e.id]) return notTools[e.id];
  if (e.token) return 'its answer is the bearer token, a secret no message carries';
  if (e.alias) return 'another path for a list another tool reads';
  if (e.money) {
    const { step, kind } = e.money;
    const sent = (kind ? [kind] : paymentKinds).map((k) => stepEndpoint(list, k, step)?.id);
    if (sent.some((id) => id !== e.id))
      return `a money endpoint no flow sends (the ${step} step's flow sends ${[...new Set(sent)].join(' and ')}): \`mpay api\` sends it through the money gate`;
  }
  if (!e.money && e.method !== 'GET') return 'a POST that moves no money: no tool sends one';
  return undefined;
}

/** A tool's name where it is not its endpoint's id in words (`publicCountries` is countries). */
const toolNames: Readonly<Partial<Record<EndpointId, string>>> = {
  merchantCurrencies: 'balances',
  // as the commands name the step: `mpay deposit process`
  depositProcessed: 'deposit_process',
  withdrawProcessed: 'withdraw_process',
};

/** `publicCountries` is countries, `statusUpdate` status_update. */
const nameOf = (e: Listed) =>
  toolNames[e.id] ??
  e.id
    .replace(/^public(?=[A-Z])/, '')
    .replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    .replace(/^_/, '');

const sent = (e: Endpoint) => `${e.method} /restapi/v1/${e.path}`;
const live =
  'Journaled before it is sent (mpay history); on a live server sent only after the person accepts the confirmation the client shows.';

/** What a money step's tool adds to the table's summary: where it stands in a payment. */
const stepSays: Record<MoneyStep, (e: Endpoint, name: string) => string> = {
  initiate: (e) =>
    `alone: its hash token and the gateways it offers; continue with status_update, wallet_update and ${e.money!.kind}_process`,
  wallet: () =>
    'of a transaction in status initiated, for the gateways that need it before the status update',
  status: () => 'of a transaction in status initiated',
  processed: (e) =>
    `of a ${e.money!.kind} already initiated (status initiated)${e.secret.includes('otp') ? ': the API sends a one-time code to the customer e-mail, which is asked of the person (or given as otp), then confirms with it' : ''}`,
};

/** The tool of an endpoint: a read of it, or its money step's. */
function endpointTool(e: Listed): Tool {
  const name = nameOf(e);
  const money = e.money !== undefined;
  return {
    name,
    title: e.summary,
    description: money
      ? `MOVES MONEY. ${e.summary} (${sent(e)}), ${stepSays[e.money!.step](e, name)}. ${live}`
      : `Reads: ${e.summary} (${sent(e)}). Moves no money.`,
    money,
    input: z.strictObject(argumentsOf(e, e.names.includes('hash_token') ? 'journaled' : 'new')),
    run: money ? stepRuns[e.money!.step](e) : readRun(e),
    endpoints: [e.id],
  };
}

/** The steps of a whole payment of a kind, in the order a flow sends them. */
const flowSteps: readonly MoneyStep[] = ['initiate', 'wallet', 'status', 'processed'];

/** A whole payment of a kind: the arguments of its steps (but the transaction's key and the status). */
function flowTool(kind: PaymentKind, list: readonly Listed[]): Tool {
  const steps = flowSteps.flatMap((step) => stepEndpoint(list, kind, step) ?? []);
  const args: Record<string, z.ZodMiniType> = {};
  for (const e of steps)
    for (const [k, v] of Object.entries(argumentsOf(e, 'new')))
      if (k !== 'key' && k !== 'status' && !(k in args)) args[k] = v;
  const said = steps.map((e) =>
    e.money!.step === 'wallet' ? `${e.summary} (when the gateway needs it)` : e.summary,
  );
  const code = steps.some((e) => e.secret.includes('otp'));
  return {
    name: kind,
    title: kind === 'deposit' ? 'Deposit' : 'Withdraw',
    description: `${steps.some((e) => e.money) ? 'MOVES MONEY. ' : ''}Runs a whole ${kind === 'deposit' ? 'deposit' : 'withdrawal'}: ${said.join(', ')}${code ? '; the code, e-mailed to the customer, is asked of the person or given as otp' : ''}. ${live}`,
    money: steps.some((e) => e.money),
    input: z.strictObject({
      ...args,
      wallet: z.optional(
        z
          .boolean()
          .check(
            z.describe(
              'force (true) or skip (false) the wallet address update; default: the gateway decides',
            ),
          ),
      ),
    }),
    run: flowRun(kind),
    endpoints: steps.map((e) => e.id),
  };
}

/** What the journal knows, and doctor: from the flows, no endpoint of their own. */
const journalTools: Tool[] = [
  {
    name: 'history',
    title: 'History',
    description:
      'The transactions mpay started at this profile and environment, newest first, from mpay\'s journal (those started through mpay mcp carry via: "mpay mcp"). Moves no money.',
    money: false,
    endpoints: [],
    input: z.strictObject({
      kind: z.optional(z.enum(paymentKinds).check(z.describe('deposit or withdraw'))),
      status: z.optional(z.enum(historyStatuses).check(z.describe('a status as history shows it'))),
      limit: z.optional(
        z.int().check(z.positive(), z.maximum(1000), z.describe('how many, newest first (default 30)')),
      ),
    }),
    async run(a, call) {
      const { statusShown } = await import('../journal/records.js');
      const { journal } = await call.deps();
      const out: JournalRecord[] = [];
      const limit = (a.limit as number | undefined) ?? 30;
      for (const r of (journal as import('../journal/journal.js').Journal).newest({})) {
        if (out.length >= limit) break;
        if (r.probe && !r.hash_token) continue;
        if (a.kind && r.kind !== a.kind) continue;
        if (a.status && statusShown(r) !== a.status) continue;
        out.push(r);
      }
      return out;
    },
  },
  {
    name: 'transaction',
    title: 'One transaction',
    description:
      "What mpay's journal knows of one transaction it started, by its reference or hash token: its steps, status and customer. Moves no money.",
    money: false,
    endpoints: [],
    input: z.strictObject({
      key: transactionKey.check(z.describe('the hash token, or the reference of a transaction mpay started')),
    }),
    async run(a, call) {
      const { journal } = await call.deps();
      const r = journal.find(a.key as string);
      if (!r)
        throw new UsageError(`Nothing in the journal for "${String(a.key)}"`, {
          fields: { key: ['not in the journal'] },
          hint: 'The history tool lists the transactions mpay started',
        });
      return fromRecord(r, { message: null, resume: null });
    },
  },
  {
    name: 'doctor',
    title: 'Doctor',
    description:
      "Checks the server, the credentials, the token and the merchant's currencies. Its API-key check is a withdraw initiate of the credentials alone (which the API refuses, creating nothing): it is journaled, passes the money gate, is skipped on a live server unless check_api_key, and is left out with mpay mcp --read-only.",
    money: false,
    probes: true,
    endpoints: [],
    input: z.strictObject({
      check_api_key: z.optional(
        z
          .boolean()
          .check(z.describe('on a live server, send the API-key check too (the person is asked first)')),
      ),
    }),
    run: (a, call) => call.doctor(a.check_api_key === true),
  },
];

/**
 * The tools of a table of endpoints: its reads, the journal's and doctor, each kind's whole flow, its
 * money steps. Every endpoint is a tool of its own or in `notTools`.
 */
export function toolsFrom(list: readonly Listed[]): Tool[] {
  const offered = list.filter((e) => whyNotATool(e, list) === undefined);
  return [
    ...offered.filter((e) => !e.money).map(endpointTool),
    ...journalTools,
    ...paymentKinds.map((kind) => flowTool(kind, list)),
    ...offered.filter((e) => e.money).map(endpointTool),
  ];
}

export const tools: Tool[] = toolsFrom(endpointList);

/**
 * What tools/list says of a tool's effects: read-only only when it sends nothing journaled (doctor's
 * API-key check is a withdraw initiate, so doctor is read-only only with --read-only, which skips it).
 */
export function annotationsOf(t: Tool, readOnly: boolean) {
  return {
    title: t.title,
    readOnlyHint: !t.money && !(t.probes && !readOnly),
    destructiveHint: t.money,
    idempotentHint: !t.money,
    openWorldHint: true,
  };
}

/** The tools a server offers: the read tools alone with --read-only. */
export const offered = (readOnly: boolean): Tool[] => tools.filter((t) => !readOnly || !t.money);
