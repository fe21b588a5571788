// What `mpay mcp` asks the person, through the client (MCP elicitation): the money gate's question on a
// live server (only an accept with "Send it" ticked sends; a client that cannot ask gets
// `confirmation_required`), and a withdrawal's one-time code (a secret of the run from the moment it is
// given). Nothing else is asked. The question names what moves: the kind, the amount and currency, the
// customer.
import { CancelledError, UsageError } from '../common/errors.js';
import type { Secrets } from '../api/redact.js';
import type { Prompter } from '../flows/prompter.js';
import type { JournalRecord } from '../journal/records.js';
import { ConfirmationRequired } from './tool-errors.js';
import type { Tool } from './tools.js';

type Server = import('@modelcontextprotocol/sdk/server/index.js').Server;
type ElicitResultSchema = (typeof import('@modelcontextprotocol/sdk/types.js'))['ElicitResultSchema'];

/** The question's line about what moves: the kind, the amount and currency, the customer. */
export function moveLine(tool: Tool, a: Record<string, unknown>, record: JournalRecord | undefined): string {
  if (tool.name === 'doctor')
    return "doctor's API-key check: a withdraw initiate of the credentials alone, no customer and no amount (the API refuses it and creates nothing)";
  const kind = tool.name.startsWith('withdraw')
    ? 'withdrawal'
    : tool.name.startsWith('deposit')
      ? 'deposit'
      : record?.kind === 'withdraw'
        ? 'withdrawal'
        : 'deposit';
  const amount = (a.amount as string | undefined) ?? record?.amount ?? '(amount not in the journal)';
  const currency = (a.currency as string | undefined) ?? record?.currency ?? '';
  const c = record?.customer ?? {};
  const who = [
    (a.first_name as string | undefined) ?? c.first_name,
    (a.last_name as string | undefined) ?? c.last_name,
  ]
    .filter(Boolean)
    .join(' ');
  const contact = [(a.email as string | undefined) ?? c.email, (a.phone as string | undefined) ?? c.phone]
    .filter(Boolean)
    .join(', ');
  const step = tool.name.replace(/^(deposit|withdraw)_?/, '').replace(/_/g, ' ');
  return (
    `${tool.title}: ${kind}${step ? ` (${step})` : ''} of ${amount} ${currency}`.trim() +
    `, customer ${who || '(not named)'}${contact ? ` (${contact})` : ''}${record ? `, reference ${record.reference}` : ''}`
  );
}

export interface Asker {
  /** the gate's questions, each naming what moves (detail) */
  confirmer(detail: string): Prompter;
  /** a withdrawal's one-time code; undefined when the client cannot ask or the person gave none */
  askCode(email: string): Promise<string | undefined>;
}

/**
 * The questions of a server, asked through its client; `inputEnded` withdraws one being asked (the client
 * can no longer answer).
 */
export function askerOf(
  server: Server,
  ElicitResult: ElicitResultSchema,
  inputEnded: AbortSignal,
  secrets: Secrets,
  log: (line: string) => void,
): Asker {
  /** Asks the person through the client, or undefined when the client cannot (no elicitation). */
  async function elicit(
    message: string,
    requestedSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] },
  ): Promise<{ action: string; content?: Record<string, unknown> } | undefined> {
    if (!server.getClientCapabilities()?.elicitation) return undefined;
    if (inputEnded.aborted) throw new CancelledError('The server is ending: nothing was sent');
    try {
      return await server.request(
        { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } },
        ElicitResult,
        // a person may take their time: no time-out but the end of input
        { signal: inputEnded, timeout: 2 ** 31 - 1, maxTotalTimeout: 2 ** 31 - 1 },
      );
    } catch (err) {
      if (inputEnded.aborted) throw new CancelledError('The server is ending: nothing was sent');
      throw err;
    }
  }

  /** The gate's questions, through elicitation: a confirmation only (a flow here asks nothing else). */
  const confirmer = (detail: string): Prompter => ({
    async confirm(o) {
      const question = `${o.message}\n${detail}\nTick "Send it" and accept to send it; accepting with the box unticked, declining or cancelling sends nothing.`;
      const answer = await elicit(question, {
        type: 'object',
        properties: {
          send: {
            type: 'boolean',
            title: 'Send it',
            description: 'Send this real-money request',
            default: false,
          },
        },
        required: ['send'],
      });
      if (!answer)
        throw new ConfirmationRequired(
          `Nothing was sent: ${o.message.replace(/\.? Send it\?$/, '')} needs the person's answer, and this MCP client cannot ask (no elicitation capability)`,
        );
      const send = answer.action === 'accept' && answer.content?.send === true;
      log(
        `live confirmation: ${send ? 'send (accepted, "Send it" ticked)' : `nothing sent (${answer.action === 'accept' ? 'accepted with "Send it" unticked' : answer.action})`}`,
      );
      return send;
    },
    input: () => Promise.reject(new UsageError('mpay mcp asks nothing but the live question')),
    password: () => Promise.reject(new UsageError('mpay mcp asks nothing but the live question')),
    select: () => Promise.reject(new UsageError('mpay mcp asks nothing but the live question')),
  });

  return {
    confirmer,
    async askCode(email) {
      const answer = await elicit(`The one-time code sent to ${email}, to confirm the withdrawal`, {
        type: 'object',
        properties: {
          code: {
            type: 'string',
            title: 'One-time code',
            description: `the code e-mailed to ${email}`,
            minLength: 4,
            maxLength: 8,
          },
        },
        required: ['code'],
      });
      const code = answer?.action === 'accept' ? answer.content?.code : undefined;
      if (typeof code !== 'string') return undefined;
      secrets.register(code.trim());
      return code;
    },
  };
}
