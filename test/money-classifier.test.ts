// The gate's classifier and its tickets, in this process (api/money.ts, api/ticket.ts): which URL moves
// money, whatever spelling reaches the wire, and what a ticket lets through. The end-to-end refusals (a client
// without a ticket sends nothing; mpay api, doctor, replay) are in money-gate.test.ts.
import { describe, expect, it } from 'vitest';
import { UnexpectedError } from '../src/common/errors.js';
import { moneyEndpointOf, moneyEndpoints, routedPath } from '../src/api/money.js';
import { runTickets, type TicketData } from '../src/api/ticket.js';

const base = 'http://127.0.0.1:1/restapi/v1/';

describe('the classifier routes a path as a lenient server would', () => {
  it('resolves a dot-dot segment that only decoding reveals (x%2f..%2finitiate is payments/initiate)', () => {
    // The URL parser resolves a literal ../ before the classifier sees it; an escaped slash hides it.
    expect(routedPath(`${base}payments/x%2f..%2finitiate`)).toBe('restapi/v1/payments/initiate');
    expect(moneyEndpointOf(`${base}payments/x%2f..%2finitiate`)?.path).toBe('payments/initiate');
    expect(moneyEndpointOf(`${base}payments/withdraw/x%2F..%2Fprocessed`)?.path).toBe(
      'payments/withdraw/processed',
    );
    // and a dot-dot pops only one segment: one too many leaves the endpoint's own path
    expect(moneyEndpointOf(`${base}payments/x%2f..%2f..%2finitiate`)).toBeUndefined();
    expect(routedPath(`${base}a%2f.%2fb`)).toBe('restapi/v1/a/b');
    expect(routedPath('http://h/%2e%2e%2f..%2fa')).toBe('a');
  });

  it('takes a backslash, plain or escaped, as a separator (payments%5cinitiate is payments/initiate)', () => {
    expect(routedPath(`${base}payments%5cinitiate`)).toBe('restapi/v1/payments/initiate');
    expect(moneyEndpointOf(`${base}payments%5cinitiate`)?.path).toBe('payments/initiate');
    expect(moneyEndpointOf(`${base}payments%5Cwithdraw%5Cinitiate`)?.kind).toBe('withdraw');
    expect(moneyEndpointOf(`${base}payments%5cx%5c..%5cstatus%5cupdate`)?.path).toBe(
      'payments/status/update',
    );
  });

  it('keeps a lone % as it is, lower-cases, and drops empty segments, a query and a trailing slash', () => {
    expect(routedPath('http://h/A%/B//c/?q=1#f')).toBe('a%/b/c');
    expect(routedPath(new URL('http://h/Payments/%69nitiate/'))).toBe('payments/initiate');
    expect(routedPath('http://h/')).toBe('');
  });

  it('classifies a money path under any base path prefix, and only a whole last segment', () => {
    for (const e of moneyEndpoints) {
      for (const prefix of ['', 'gw/', 'tenant/a/restapi/v1/', 'restapi/v1/'])
        expect(moneyEndpointOf(`http://127.0.0.1:1/${prefix}${e.path}`), prefix + e.path).toEqual(e);
      expect(moneyEndpointOf(`${base}x${e.path}`), `x${e.path}`).toBeUndefined();
      expect(moneyEndpointOf(`${base}${e.path}x`), `${e.path}x`).toBeUndefined();
    }
    expect(moneyEndpointOf(`${base}payments/status`)).toBeUndefined();
  });
});

describe('a ticket lets through the one step and payment it was made for', () => {
  const ticketData = (over: Partial<TicketData> = {}): TicketData => ({
    step: 'initiate',
    kind: 'deposit',
    carries: { field: 'customer_transaction_id', value: 'r-1' },
    live: false,
    check: () => {},
    ...over,
  });
  const post = (path: string, body: Record<string, unknown> = { customer_transaction_id: 'r-1' }) => ({
    method: 'POST',
    url: base + path,
    body,
  });

  it('answers undefined for a request that moves no money, with or without a ticket', () => {
    const tickets = runTickets();
    expect(tickets.verify(undefined, post('public/currencies'))).toBeUndefined();
    expect(tickets.issuedAny()).toBe(false);
  });

  it('refuses a deposit ticket at the withdraw endpoint of the same step, and a withdraw one at the deposit', () => {
    const tickets = runTickets();
    const deposit = tickets.issue(ticketData());
    expect(tickets.issuedAny()).toBe(true);
    expect(() => tickets.verify(deposit.ticket, post('payments/withdraw/initiate'))).toThrow(
      /POST \/payments\/withdraw\/initiate.*ticket for another step \(deposit initiate\)/,
    );
    expect(tickets.verify(deposit.ticket, post('payments/initiate'))).toMatchObject({ kind: 'deposit' });
    const withdraw = tickets.issue(ticketData({ kind: 'withdraw' }));
    expect(() => tickets.verify(withdraw.ticket, post('payments/initiate'))).toThrow(UnexpectedError);
    expect(() => tickets.verify(withdraw.ticket, post('payments/processed'))).toThrow(/another step/);
    expect(tickets.verify(withdraw.ticket, post('payments/withdraw/initiate'))).toMatchObject({
      kind: 'withdraw',
    });
  });

  it('refuses a ticket at another step’s endpoint, with the same payment and kind, or with no kind', () => {
    const tickets = runTickets();
    const initiate = tickets.issue(ticketData());
    expect(() => tickets.verify(initiate.ticket, post('payments/processed'))).toThrow(
      /POST \/payments\/processed moves money and came with a ticket for another step \(deposit initiate\)/,
    );
    const status = tickets.issue(
      ticketData({ step: 'status', kind: undefined, carries: { field: 'hash_token', value: 'h' } }),
    );
    expect(() =>
      tickets.verify(status.ticket, post('payments/crypto/wallet/address/update', { hash_token: 'h' })),
    ).toThrow(
      'Nothing was sent: POST /payments/crypto/wallet/address/update moves money and came with a ticket for another step ( status)',
    );
  });

  it('a refusal says nothing was sent and that it is a bug of mpay’s, to report with --debug', () => {
    const tickets = runTickets();
    let thrown: unknown;
    try {
      tickets.verify(undefined, post('payments/initiate'));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UnexpectedError);
    expect((thrown as UnexpectedError).message).toBe(
      'Nothing was sent: POST /payments/initiate moves money and came without the money gate’s ticket',
    );
    expect((thrown as UnexpectedError).hint).toMatch(
      /^mpay sends a money request only through its money gate .*please report it with --debug$/,
    );
  });

  it('a status ticket (no kind) passes the status endpoint (no kind); its hash token must match', () => {
    const tickets = runTickets();
    const status = tickets.issue(
      ticketData({ step: 'status', kind: undefined, carries: { field: 'hash_token', value: 'h' } }),
    );
    expect(tickets.verify(status.ticket, post('payments/status/update', { hash_token: 'h' }))).toBeDefined();
    expect(() => tickets.verify(status.ticket, post('payments/status/update', { hash_token: 'x' }))).toThrow(
      /carries another hash_token than its ticket was made for/,
    );
    expect(() => tickets.verify(status.ticket, post('payments/status/update', {}))).toThrow(
      /another hash_token/,
    );
    expect(() => tickets.verify(status.ticket, post('payments/status/update', { hash_token: null }))).toThrow(
      /another hash_token/,
    );
  });

  it('a ticket that carries nothing lets through only a body without the field; a number is compared as text', () => {
    const tickets = runTickets();
    const probe = tickets.issue(
      ticketData({ carries: { field: 'customer_transaction_id', value: undefined } }),
    );
    expect(tickets.verify(probe.ticket, post('payments/initiate', {}))).toBeDefined();
    expect(
      tickets.verify(probe.ticket, post('payments/initiate', { customer_transaction_id: null })),
    ).toBeDefined();
    expect(() => tickets.verify(probe.ticket, post('payments/initiate'))).toThrow(
      /another customer_transaction_id/,
    );
    const numbered = tickets.issue(
      ticketData({ carries: { field: 'customer_transaction_id', value: '42' } }),
    );
    expect(
      tickets.verify(numbered.ticket, post('payments/initiate', { customer_transaction_id: 42 })),
    ).toBeDefined();
  });

  it('runs the ticket’s lock check on every verification, and refuses a revoked or foreign ticket', () => {
    const tickets = runTickets();
    let checks = 0;
    const { ticket, revoke } = tickets.issue(ticketData({ check: () => void checks++ }));
    tickets.verify(ticket, post('payments/initiate'));
    tickets.verify(ticket, post('payments/initiate'));
    expect(checks).toBe(2);
    const lost = tickets.issue(
      ticketData({
        check: () => {
          throw new Error('lock lost');
        },
      }),
    );
    expect(() => tickets.verify(lost.ticket, post('payments/initiate'))).toThrow('lock lost');
    revoke();
    expect(() => tickets.verify(ticket, post('payments/initiate'))).toThrow(/already used/);
    expect(() => tickets.verify(undefined, post('payments/initiate'))).toThrow(
      /without the money gate’s ticket/,
    );
    const other = runTickets().issue(ticketData());
    expect(() => tickets.verify(other.ticket, post('payments/initiate'))).toThrow(
      /without the money gate’s ticket/,
    );
    expect(checks).toBe(2);
  });
});
