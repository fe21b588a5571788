// The money gate's tickets. A request that moves money (money.ts) leaves the sender only with a ticket, and
// only the money gate (flows/gate/money-gate.ts) can make one: the Factory makes the run's tickets once, hands
// their `issue` to the gate alone and their `verify` to the client. A ticket is the gate's word that the
// journal record of the step was written and synced, that the transaction's lock is held, and, for a live
// server, that the person confirmed. It lets through the one step it was made for (its endpoint and the
// reference or hash token the body carries), until the gate revokes it when the step has its answer.
import { UnexpectedError } from '../common/errors.js';
import type { PaymentKind } from './enums.js';
import { moneyEndpointOf, type MoneyStep } from './money.js';

declare const ticketBrand: unique symbol;
/** Opaque: nothing but the run's tickets that issued it can read it. */
export type Ticket = { readonly [ticketBrand]: true };

export interface TicketData {
  step: MoneyStep;
  kind?: PaymentKind;
  /**
   * What the body must carry: an initiate's customer_transaction_id, a later step's hash_token (undefined:
   * the field must be absent, as in the credentials probe).
   */
  carries: { field: 'customer_transaction_id' | 'hash_token'; value: string | undefined };
  /** confirmed for a live server: the sender says so to an mpay proxy in front of one */
  live: boolean;
  /** throws when the lock the ticket stands on was lost (another mpay took it over) */
  check(): void;
}

export interface MoneyRequest {
  method: string;
  url: string;
  body?: Record<string, unknown>;
}

/** What the client holds: a ticket's verification only. */
export type VerifyTicket = (ticket: Ticket | undefined, req: MoneyRequest) => TicketData | undefined;
/** What the gate alone holds. */
export type Issue = (data: TicketData) => { ticket: Ticket; revoke(): void };

const refused = (what: string, why: string) =>
  new UnexpectedError(`Nothing was sent: ${what} moves money and ${why}`, {
    hint: 'mpay sends a money request only through its money gate (journaled, locked, confirmed on a live server); this is a bug in mpay, please report it with --debug',
  });

/**
 * The run's tickets, made once a run. `verify` answers undefined for a request that moves no money; for one
 * that does, the data of its ticket, or an error (nothing is sent) when it has none, or one made for another step.
 */
export function runTickets(): { issue: Issue; verify: VerifyTicket; issuedAny: () => boolean } {
  const issued = new WeakMap<object, { data: TicketData; revoked: boolean }>();
  let any = false;
  return {
    /** whether the run let any money request go (a Ctrl-C says "nothing was sent" when none) */
    issuedAny: () => any,
    issue(data) {
      any = true;
      const ticket = Object.freeze({}) as Ticket;
      const entry = { data, revoked: false };
      issued.set(ticket, entry);
      return { ticket, revoke: () => void (entry.revoked = true) };
    },
    verify(ticket, req) {
      const endpoint = moneyEndpointOf(req.url);
      if (!endpoint) return undefined;
      const what = `${req.method} /${endpoint.path}`;
      const entry = ticket ? issued.get(ticket) : undefined;
      if (!entry) throw refused(what, 'came without the money gate’s ticket');
      if (entry.revoked) throw refused(what, 'came with a ticket already used');
      const { data } = entry;
      if (data.step !== endpoint.step || (endpoint.kind && data.kind && data.kind !== endpoint.kind))
        throw refused(what, `came with a ticket for another step (${data.kind ?? ''} ${data.step})`);
      const carried = req.body?.[data.carries.field];
      const given = carried === undefined || carried === null ? undefined : String(carried);
      if (given !== data.carries.value)
        throw refused(what, `carries another ${data.carries.field} than its ticket was made for`);
      data.check();
      return data;
    },
  };
}
