// The money gate's tickets. A request that moves money (money.ts) leaves the sender only with a ticket, and
// only the money gate (flows/money-gate.ts) can make one: the Factory makes one office a run, hands its
// `issue` to the gate alone and its `admit` to the client. A ticket is the gate's word that the journal
// record of the step was written and synced, that the transaction's lock is held, and, for a live server,
// that the person confirmed. It admits the one step it was made for (its endpoint and the reference or hash
// token the body carries), until the gate revokes it when the step has its answer.
import { UnexpectedError } from './errors.js';
import type { PaymentKind } from './enums.js';
import { moneyEndpointOf, type MoneyStep } from './money.js';

declare const ticketBrand: unique symbol;
/** Opaque: nothing but the office that made it can read it. */
export type Ticket = { readonly [ticketBrand]: true };

export interface TicketTerms {
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

/** What the client holds: admission only. */
export type Admit = (ticket: Ticket | undefined, req: MoneyRequest) => TicketTerms | undefined;
/** What the gate alone holds. */
export type Issue = (terms: TicketTerms) => { ticket: Ticket; revoke(): void };

const refused = (what: string, why: string) =>
  new UnexpectedError(`Nothing was sent: ${what} moves money and ${why}`, {
    hint: 'mpay sends a money request only through its money gate (journaled, locked, confirmed on a live server); this is a bug in mpay, please report it with --debug',
  });

/**
 * One office a run. `admit` answers undefined for a request that moves no money; for one that does, the
 * terms of its ticket, or an error (nothing is sent) when it has none, or one made for another step.
 */
export function ticketOffice(): { issue: Issue; admit: Admit; issuedAny: () => boolean } {
  const issued = new WeakMap<object, { terms: TicketTerms; revoked: boolean }>();
  let any = false;
  return {
    /** whether the run let any money request go (a Ctrl-C says "nothing was sent" when none) */
    issuedAny: () => any,
    issue(terms) {
      any = true;
      const ticket = Object.freeze({}) as Ticket;
      const entry = { terms, revoked: false };
      issued.set(ticket, entry);
      return { ticket, revoke: () => void (entry.revoked = true) };
    },
    admit(ticket, req) {
      const endpoint = moneyEndpointOf(req.url);
      if (!endpoint) return undefined;
      const what = `${req.method} /${endpoint.path}`;
      const entry = ticket ? issued.get(ticket) : undefined;
      if (!entry) throw refused(what, 'came without the money gate’s ticket');
      if (entry.revoked) throw refused(what, 'came with a ticket already used');
      const { terms } = entry;
      if (terms.step !== endpoint.step || (endpoint.kind && terms.kind && terms.kind !== endpoint.kind))
        throw refused(what, `came with a ticket for another step (${terms.kind ?? ''} ${terms.step})`);
      const carried = req.body?.[terms.carries.field];
      const given = carried === undefined || carried === null ? undefined : String(carried);
      if (given !== terms.carries.value)
        throw refused(what, `carries another ${terms.carries.field} than its ticket was made for`);
      terms.check();
      return terms;
    },
  };
}
