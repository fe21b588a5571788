// Where a transaction stands, as the journal's lines fold into its record (journal/records.ts): what
// `mpay history` shows, what a resume skips as done, what prune may delete, where a record is continued.
// Each case is a sequence of lines as mpay writes them, some as another process or an older mpay did.
import { describe, expect, it } from 'vitest';
import {
  foldRecords,
  isEvent,
  notResumable,
  placeArgs,
  settled,
  statusShown,
  stepDone,
  type JournalEvent,
  type Place,
} from '../src/journal/records.js';

const here: Place = { server: 'http://127.0.0.1:1', merchant: 'm1', profile: 'default', env: 'sandbox' };
let clock = 0;
function line(
  step: JournalEvent['step'],
  outcome: JournalEvent['outcome'],
  more: Partial<JournalEvent> = {},
): JournalEvent {
  clock++;
  return {
    at: `2026-01-01T00:00:${String(clock).padStart(2, '0')}.000Z`,
    reference: 'REF-1',
    kind: 'withdraw',
    step,
    outcome,
    place: here,
    ...more,
  };
}
const one = (events: JournalEvent[]) => {
  const records = foldRecords(events);
  expect(records).toHaveLength(1);
  return records[0]!;
};

describe('a journal line', () => {
  it('is read only when it has the fields of an event', () => {
    const good = line('initiate', 'sent');
    expect(isEvent(good)).toBe(true);
    expect(isEvent({ ...good, place: undefined })).toBe(true);
    expect(isEvent({ ...good, kind: 'deposit' })).toBe(true);
    for (const bad of [
      null,
      'initiate',
      42,
      { ...good, reference: 7 },
      { ...good, kind: 'refund' },
      { ...good, step: undefined },
      { ...good, outcome: 1 },
      { ...good, at: undefined },
      { ...good, place: null },
      { ...good, place: 'here' },
      { ...good, place: { ...here, server: 1 } },
      { ...good, place: { ...here, merchant: undefined } },
    ])
      expect(isEvent(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe('a record', () => {
  it('gathers the facts its steps learned, the first place, the latest hash token', () => {
    const r = one([
      line('initiate', 'sent', {
        data: {
          amount: '10.50',
          currency: 'GHS',
          country: 'GH',
          customer: { first_name: 'Ama' },
          via: 'mcp',
        },
      }),
      line('initiate', 'ok', {
        hash_token: 'h1',
        data: {
          status: 'initiated',
          customer: { phone: '+233' },
          gateway_id: 3,
          gateway_name: 'Momo',
          via: 'cli',
        },
        place: { ...here, profile: 'other' },
      }),
      line('wallet', 'ok', {
        hash_token: 'h1',
        place: { ...here, env: 'stage' },
        data: { wallet_address: 'bc1q', transaction_id: 'T9', fee: 1.5 },
      }),
    ]);
    expect(r.place).toEqual(here);
    expect(r).toMatchObject({
      reference: 'REF-1',
      kind: 'withdraw',
      hash_token: 'h1',
      amount: '10.50',
      currency: 'GHS',
      country: 'GH',
      customer: { first_name: 'Ama', phone: '+233' },
      gateway_id: 3,
      gateway_name: 'Momo',
      wallet_address: 'bc1q',
      transaction_id: 'T9',
      fee: 1.5,
      status: 'initiated',
      via: 'mcp',
    });
    expect(r.created_at).not.toBe(r.updated_at);
    expect(r.updated_at).toBe(r.steps.at(-1)!.at);
  });

  it('takes no fact of the wrong type from a line another mpay wrote', () => {
    const r = one([
      line('initiate', 'ok', {
        data: {
          amount: 10,
          currency: 1,
          country: null,
          customer: 'Ama',
          gateway_id: '3',
          gateway_name: 4,
          wallet_address: 5,
          transaction_id: 6,
          fee: '1',
          status: 7,
          probe: 'yes',
          via: 8,
        },
      }),
    ]);
    for (const k of [
      'amount',
      'currency',
      'country',
      'customer',
      'gateway_id',
      'gateway_name',
      'wallet_address',
      'transaction_id',
      'fee',
      'status',
      'probe',
      'via',
    ])
      expect(r, k).not.toHaveProperty(k);
  });

  it('pairs a step sent with its outcome, one step each, whatever lines fell between', () => {
    const r = one([
      line('initiate', 'sent'),
      line('initiate', 'ok', { data: { status: 'initiated' } }),
      line('status', 'sent'),
      line('otp', 'sent', { data: { phone_number: '+2331', customer_email: 'a@x.org' } }),
      line('status', 'failed', { data: { error: 'the server said no', message: 'not this one' } }),
      line('otp', 'ok', { data: { message: 'code sent' } }),
    ]);
    expect(r.steps.map((s) => [s.step, s.outcome, s.detail])).toEqual([
      ['initiate', 'ok', undefined],
      ['status', 'failed', 'the server said no'],
      ['otp', 'ok', 'code sent'],
    ]);
    expect(r.code_request).toEqual({ phone_number: '+2331', customer_email: 'a@x.org' });
    expect(stepDone(r, 'otp')).toBe(true);
    expect(stepDone(r, 'status')).toBe(false);
    expect(stepDone(r, 'processed')).toBe(false);
  });

  it('keeps the code request of the sent line only, with its receiver when it had one', () => {
    const r = one([
      line('otp', 'ok', { data: { phone_number: '+9', customer_email: 'no@x.org' } }),
      line('otp', 'sent', {
        data: { phone_number: '+2331', customer_email: 'a@x.org', receiver_email: 'b@x.org' },
      }),
    ]);
    expect(r.code_request).toEqual({
      phone_number: '+2331',
      customer_email: 'a@x.org',
      receiver_email: 'b@x.org',
    });
    expect(one([line('otp', 'sent', { data: { customer_email: 'a@x.org' } })]).code_request).toBeUndefined();
  });

  it('ends a try that was held back (429) when its lock was taken over, and no other', () => {
    const r = one([line('status', 'ok'), line('processed', 'throttled'), line('processed', 'taken_over')]);
    expect(r.steps.map((s) => [s.step, s.outcome])).toEqual([
      ['status', 'ok'],
      ['processed', 'taken_over'],
    ]);
    const notTaken = one([line('processed', 'throttled'), line('processed', 'failed')]);
    expect(notTaken.steps.map((s) => s.outcome)).toEqual(['throttled', 'failed']);
  });

  it('keeps the status the server gave when a later step is refused as not initiated', () => {
    const processed = one([
      line('processed', 'ok', { data: { status: 'pending' } }),
      line('status', 'failed', { data: { status: 'not initiated' } }),
    ]);
    expect(processed.status).toBe('pending');
    const moved = one([
      line('status', 'ok', { data: { status: 'success' } }),
      line('status', 'failed', { data: { status: 'not initiated' } }),
    ]);
    expect(moved.status).toBe('success');
    // never answered otherwise: the refusal is all mpay knows
    const fresh = one([
      line('initiate', 'ok', { data: { status: 'initiated' } }),
      line('status', 'failed', { data: { status: 'not initiated' } }),
    ]);
    expect(fresh.status).toBe('not initiated');
    expect(one([line('status', 'failed', { data: { status: 'not initiated' } })]).status).toBe(
      'not initiated',
    );
    // a step that succeeds takes its status whatever came before
    expect(
      one([
        line('processed', 'ok', { data: { status: 'pending' } }),
        line('status', 'ok', { data: { status: 'failed' } }),
      ]).status,
    ).toBe('failed');
    // a failed step's other status is the server's too
    expect(
      one([
        line('status', 'ok', { data: { status: 'success' } }),
        line('status', 'failed', { data: { status: 'cancelled' } }),
      ]).status,
    ).toBe('cancelled');
  });
});

describe('what history shows, resumes and prunes', () => {
  it('shows unknown while the last request has no answer', () => {
    expect(statusShown(one([line('initiate', 'sent', { data: { status: 'x' } })]))).toBe('unknown');
    expect(
      statusShown(
        one([line('initiate', 'ok', { data: { status: 'initiated' } }), line('status', 'ambiguous')]),
      ),
    ).toBe('unknown');
    expect(
      statusShown(one([line('initiate', 'ok', { data: { status: 'initiated' } }), line('status', 'failed')])),
    ).toBe('initiated');
    expect(statusShown(one([line('initiate', 'ok', { data: { status: 'initiated' } })]))).toBe('initiated');
  });

  it('settles a transaction only when processed, final, settled by a person, or a refused credentials check', () => {
    const initiated = [line('initiate', 'ok', { hash_token: 'h', data: { status: 'initiated' } })];
    expect(settled(one(initiated))).toBe(false);
    expect(settled(one([...initiated, line('processed', 'ok')]))).toBe(true);
    expect(settled(one([...initiated, line('processed', 'failed')]))).toBe(false);
    for (const status of ['success', 'failed', 'cancelled'])
      expect(settled(one([...initiated, line('status', 'ok', { data: { status } })])), status).toBe(true);
    expect(settled(one([...initiated, line('status', 'ok', { data: { status: 'pending' } })]))).toBe(false);
    for (const as of ['landed', 'abandoned'])
      expect(settled(one([...initiated, line('resolved', 'ok', { data: { as } })])), as).toBe(true);
    expect(settled(one([...initiated, line('resolved', 'ok', { data: { as: 'not-sent' } })]))).toBe(false);
    // landed, found by --check, but with no hash token mpay can finish: a person still has to decide
    const landedUnfinished = one([
      line('initiate', 'ambiguous'),
      line('resolved', 'ok', { data: { as: 'landed', checked: true } }),
    ]);
    expect(landedUnfinished.resolved).toEqual({
      as: 'landed',
      at: landedUnfinished.updated_at,
      checked: true,
    });
    expect(settled(landedUnfinished)).toBe(false);
    expect(
      settled(one([line('initiate', 'ambiguous'), line('resolved', 'ok', { data: { as: 'landed' } })])),
    ).toBe(true);
    expect(
      settled(one([...initiated, line('resolved', 'ok', { data: { as: 'landed', checked: true } })])),
    ).toBe(true);
    // a credentials check: over once the API refused it, never while it is unanswered or made something
    const probe = (more: JournalEvent[]) =>
      one([line('initiate', 'sent', { data: { probe: true } }), ...more]);
    expect(settled(probe([line('initiate', 'failed')]))).toBe(true);
    expect(settled(probe([]))).toBe(false);
    expect(settled(probe([line('initiate', 'failed', { hash_token: 'h' })]))).toBe(false);
    expect(settled(one([line('initiate', 'failed')]))).toBe(false);
  });

  it('makes every unanswered step failed when a person settles it as not sent, so the next run sends it again', () => {
    const r = one([
      line('initiate', 'ok', { hash_token: 'h' }),
      line('status', 'ambiguous'),
      line('processed', 'sent'),
      line('resolved', 'ok', { data: { as: 'not-sent', note: 'checked the dashboard' } }),
    ]);
    expect(r.steps.map((s) => [s.step, s.outcome, s.detail])).toEqual([
      ['initiate', 'ok', undefined],
      ['status', 'failed', 'settled by hand as not sent'],
      ['processed', 'failed', 'settled by hand as not sent'],
      ['resolved', 'ok', 'as not-sent: checked the dashboard'],
    ]);
    expect(r.resolved).toEqual({ as: 'not-sent', at: r.updated_at, note: 'checked the dashboard' });
    expect(statusShown(r)).toBeUndefined();
    const plain = one([
      line('initiate', 'sent'),
      line('resolved', 'ok', { data: { as: 'abandoned', note: 7 } }),
    ]);
    expect(plain.resolved).toEqual({ as: 'abandoned', at: plain.updated_at });
    expect(plain.steps.map((s) => [s.outcome, s.detail])).toEqual([
      ['sent', undefined],
      ['ok', 'as abandoned'],
    ]);
  });

  it('resumes only a payment mpay initiated', () => {
    expect(
      notResumable(one([line('initiate', 'ok', { hash_token: 'h' }), line('status', 'failed')])),
    ).toBeUndefined();
    expect(notResumable(one([line('initiate', 'failed', { data: { probe: true } })]))).toMatch(
      /credentials check/,
    );
    expect(notResumable(one([line('status', 'ok', { hash_token: "h'$(id)" })]))).toBe(
      "mpay did not initiate it: its journal holds only the steps sent to hash token 'h'\\''$(id)'",
    );
    expect(notResumable(one([line('status', 'ok')]))).toContain('sent to hash token REF-1');
  });
});

describe('a reference at two places', () => {
  it('is a record a place, each continued at its own server and merchant; a line of no place then joins none', () => {
    const elsewhere: Place = { ...here, server: 'http://127.0.0.1:2' };
    const otherMerchant: Place = { ...here, merchant: 'm2' };
    const records = foldRecords([
      line('initiate', 'ok', { hash_token: 'a', data: { amount: '1.00' } }),
      line('initiate', 'ok', { hash_token: 'b', place: elsewhere, data: { amount: '2.00' } }),
      line('initiate', 'ok', { hash_token: 'c', place: otherMerchant, data: { amount: '3.00' } }),
      line('status', 'ok', {
        hash_token: 'a',
        place: { ...here, profile: 'p2', env: 'stage' },
        data: { status: 'pending' },
      }),
      line('status', 'ok', { place: undefined, data: { status: 'success' } }),
    ]);
    expect(
      records.map((r) => [r.place?.server, r.place?.merchant, r.hash_token, r.amount, r.status]),
    ).toEqual([
      [here.server, 'm1', 'a', '1.00', 'pending'],
      [elsewhere.server, 'm1', 'b', '2.00', undefined],
      [here.server, 'm2', 'c', '3.00', undefined],
      [undefined, undefined, undefined, undefined, 'success'],
    ]);
  });

  it('takes the place of its first placed line when it began before places were written', () => {
    const records = foldRecords([
      line('initiate', 'ok', { place: undefined, hash_token: 'old' }),
      line('status', 'ok', { data: { status: 'pending' } }),
      line('initiate', 'ok', { reference: 'REF-2', place: undefined }),
      line('initiate', 'ok', { reference: 'REF-2', place: undefined, hash_token: 'same' }),
    ]);
    expect(records.map((r) => [r.reference, r.place, r.hash_token, r.status, r.steps.length])).toEqual([
      ['REF-1', here, 'old', 'pending', 2],
      ['REF-2', undefined, 'same', undefined, 2],
    ]);
  });

  it('moves to the server a person named, keeping its merchant, and only a placed record', () => {
    const r = one([
      line('initiate', 'ok', { hash_token: 'h' }),
      line('moved', 'ok', { data: { from: here.server, to: 'http://new:1' } }),
    ]);
    expect(r.place).toEqual({ ...here, server: 'http://new:1' });
    expect(r.steps.at(-1)).toEqual({
      step: 'moved',
      outcome: 'ok',
      at: r.updated_at,
      detail: `from ${here.server} to http://new:1`,
    });
    // the first line's own place is not changed under it
    expect(here.server).toBe('http://127.0.0.1:1');
    const unplaced = foldRecords([
      line('initiate', 'ok', { place: undefined }),
      line('moved', 'ok', { place: undefined, data: { from: 'a', to: 'http://new:1' } }),
    ])[0]!;
    expect(unplaced.place).toBeUndefined();
    expect(unplaced.steps.at(-1)).toMatchObject({ step: 'moved', outcome: 'ok', detail: undefined });
    const noTarget = one([line('initiate', 'ok'), line('moved', 'ok', { data: { from: 'a', to: 5 } })]);
    expect(noTarget.place).toEqual(here);
  });
});

describe('a record, step by step', () => {
  it('keeps a try sent again as a step of its own, unanswered, beside the one answered', () => {
    const r = one([
      line('status', 'sent'),
      line('status', 'sent'),
      line('status', 'ok', { data: { status: 'pending' } }),
    ]);
    expect(r.steps.map((s) => [s.step, s.outcome])).toEqual([
      ['status', 'sent'],
      ['status', 'ok'],
    ]);
  });

  it('ends, when its lock is taken over, only a try that is still open', () => {
    const r = one([line('processed', 'failed'), line('processed', 'taken_over')]);
    expect(r.steps.map((s) => [s.step, s.outcome])).toEqual([
      ['processed', 'failed'],
      ['processed', 'taken_over'],
    ]);
    const answered = one([line('status', 'ok'), line('status', 'failed')]);
    expect(answered.steps.map((s) => s.outcome)).toEqual(['ok', 'failed']);
  });

  it('takes the code request from the withdrawal code step as sent, and from no other line', () => {
    const contact = { phone_number: '+2331', customer_email: 'a@x.org' };
    expect(one([line('status', 'sent', { data: contact })]).code_request).toBeUndefined();
    expect(one([line('otp', 'failed', { data: contact })]).code_request).toBeUndefined();
    const sentThenAnswered = one([
      line('otp', 'sent', { data: contact }),
      line('otp', 'ok', { data: { phone_number: '+9999', customer_email: 'other@x.org' } }),
    ]);
    expect(sentThenAnswered.code_request).toEqual(contact);
  });

  it('moves only on a move line: another line naming a server in its data is no move', () => {
    const r = one([
      line('initiate', 'ok'),
      line('status', 'ok', { data: { to: 'http://evil:1', from: here.server } }),
    ]);
    expect(r.place).toEqual(here);
    expect(r.steps.map((s) => s.step)).toEqual(['initiate', 'status']);
  });

  it('joins a line of no place to the one placed record of its reference', () => {
    const r = one([
      line('initiate', 'ok', { hash_token: 'h' }),
      line('status', 'ok', { place: undefined, data: { status: 'pending' } }),
    ]);
    expect(r.place).toEqual(here);
    expect(r.status).toBe('pending');
  });

  it('repeats the place in the words of a command printed to continue it', () => {
    expect(placeArgs(here)).toEqual([
      '--profile',
      'default',
      '--env',
      'sandbox',
      '--base-url',
      'http://127.0.0.1:1',
    ]);
  });
});
