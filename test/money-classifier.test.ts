// The gate's classifier and its tickets, in this process (api/money.ts, api/ticket.ts): which URL moves
// money, whatever spelling reaches the wire, and what a ticket admits. The end-to-end refusals (a client
// without a ticket sends nothing; mpay api, doctor, replay) are in money-gate.test.ts.
import { describe, expect, it } from 'vitest';
import { UnexpectedError } from '../src/api/errors.js';
import { moneyEndpointOf, moneyEndpoints, routedPath } from '../src/api/money.js';
import { ticketOffice, type TicketTerms } from '../src/api/ticket.js';

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

describe('a ticket admits the one step and payment it was made for', () => {
  const terms = (over: Partial<TicketTerms> = {}): TicketTerms => ({
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
    const office = ticketOffice();
    expect(office.admit(undefined, post('public/currencies'))).toBeUndefined();
    expect(office.issuedAny()).toBe(false);
  });

  it('refuses a deposit ticket at the withdraw endpoint of the same step, and a withdraw one at the deposit', () => {
    const office = ticketOffice();
    const deposit = office.issue(terms());
    expect(office.issuedAny()).toBe(true);
    expect(() => office.admit(deposit.ticket, post('payments/withdraw/initiate'))).toThrow(
      /POST \/payments\/withdraw\/initiate.*ticket for another step \(deposit initiate\)/,
    );
    expect(office.admit(deposit.ticket, post('payments/initiate'))).toMatchObject({ kind: 'deposit' });
    const withdraw = office.issue(terms({ kind: 'withdraw' }));
    expect(() => office.admit(withdraw.ticket, post('payments/initiate'))).toThrow(UnexpectedError);
    expect(() => office.admit(withdraw.ticket, post('payments/processed'))).toThrow(/another step/);
    expect(office.admit(withdraw.ticket, post('payments/withdraw/initiate'))).toMatchObject({
      kind: 'withdraw',
    });
  });

  it('refuses a ticket at another step’s endpoint, with the same payment and kind, or with no kind', () => {
    const office = ticketOffice();
    const initiate = office.issue(terms());
    expect(() => office.admit(initiate.ticket, post('payments/processed'))).toThrow(
      /POST \/payments\/processed moves money and came with a ticket for another step \(deposit initiate\)/,
    );
    const status = office.issue(
      terms({ step: 'status', kind: undefined, carries: { field: 'hash_token', value: 'h' } }),
    );
    expect(() =>
      office.admit(status.ticket, post('payments/crypto/wallet/address/update', { hash_token: 'h' })),
    ).toThrow(
      'Nothing was sent: POST /payments/crypto/wallet/address/update moves money and came with a ticket for another step ( status)',
    );
  });

  it('a refusal says nothing was sent and that it is a bug of mpay’s, to report with --debug', () => {
    const office = ticketOffice();
    let thrown: unknown;
    try {
      office.admit(undefined, post('payments/initiate'));
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
    const office = ticketOffice();
    const status = office.issue(
      terms({ step: 'status', kind: undefined, carries: { field: 'hash_token', value: 'h' } }),
    );
    expect(office.admit(status.ticket, post('payments/status/update', { hash_token: 'h' }))).toBeDefined();
    expect(() => office.admit(status.ticket, post('payments/status/update', { hash_token: 'x' }))).toThrow(
      /carries another hash_token than its ticket was made for/,
    );
    expect(() => office.admit(status.ticket, post('payments/status/update', {}))).toThrow(
      /another hash_token/,
    );
    expect(() => office.admit(status.ticket, post('payments/status/update', { hash_token: null }))).toThrow(
      /another hash_token/,
    );
  });

  it('a ticket that carries nothing admits only a body without the field; a number is compared as text', () => {
    const office = ticketOffice();
    const probe = office.issue(terms({ carries: { field: 'customer_transaction_id', value: undefined } }));
    expect(office.admit(probe.ticket, post('payments/initiate', {}))).toBeDefined();
    expect(
      office.admit(probe.ticket, post('payments/initiate', { customer_transaction_id: null })),
    ).toBeDefined();
    expect(() => office.admit(probe.ticket, post('payments/initiate'))).toThrow(
      /another customer_transaction_id/,
    );
    const numbered = office.issue(terms({ carries: { field: 'customer_transaction_id', value: '42' } }));
    expect(
      office.admit(numbered.ticket, post('payments/initiate', { customer_transaction_id: 42 })),
    ).toBeDefined();
  });

  it('runs the ticket’s lock check on every admission, and refuses a revoked or foreign ticket', () => {
    const office = ticketOffice();
    let checks = 0;
    const { ticket, revoke } = office.issue(terms({ check: () => void checks++ }));
    office.admit(ticket, post('payments/initiate'));
    office.admit(ticket, post('payments/initiate'));
    expect(checks).toBe(2);
    const lost = office.issue(
      terms({
        check: () => {
          throw new Error('lock lost');
        },
      }),
    );
    expect(() => office.admit(lost.ticket, post('payments/initiate'))).toThrow('lock lost');
    revoke();
    expect(() => office.admit(ticket, post('payments/initiate'))).toThrow(/already used/);
    expect(() => office.admit(undefined, post('payments/initiate'))).toThrow(
      /without the money gate’s ticket/,
    );
    const other = ticketOffice().issue(terms());
    expect(() => office.admit(other.ticket, post('payments/initiate'))).toThrow(
      /without the money gate’s ticket/,
    );
    expect(checks).toBe(2);
  });
});
