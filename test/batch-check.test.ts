// A batch row's identity (flows/batch/batch-check.ts), in this process: the journal's record of a row's
// reference is the same payment only when kind, amount, currency and every contact it holds agree; a
// phone is compared by its digits, whatever its spelling. The batch runs end to end are in batch.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCurrency } from '../src/api/schemas.js';
import {
  BatchChecker,
  inputsOf,
  otherPayment,
  rowReference,
  type BatchRow,
} from '../src/flows/batch/batch-check.js';
import { loadPhoneRules } from '../src/flows/payment/phones.js';
import { Journal } from '../src/journal/journal.js';
import type { JournalRecord, Place } from '../src/journal/records.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers.js';

const record = (over: Partial<JournalRecord> = {}): JournalRecord => ({
  reference: 'row-1',
  kind: 'withdraw',
  amount: '25.00',
  currency: 'GHS',
  customer: { first_name: 'Ama', last_name: 'Mensah', phone: '+233201234567', email: 'ama@example.com' },
  created_at: '2026-11-27T00:00:00.000Z',
  updated_at: '2026-11-27T00:00:00.000Z',
  steps: [],
  ...over,
});
const row = {
  amount: '25',
  currency: 'ghs',
  first_name: 'AMA ',
  last_name: 'mensah',
  phone: '0201234567',
  email: 'Ama@Example.com',
};

describe('otherPayment', () => {
  it('is the same payment for the same row in another spelling (25 for 25.00, case, spaces, +233 or 0)', () => {
    expect(otherPayment('withdraw', row, record())).toBeUndefined();
    expect(otherPayment('withdraw', { ...row, phone: '233 20 123 4567' }, record())).toBeUndefined();
    // spaces around a value the journal kept count for nothing either
    const spaced = record({
      currency: ' GHS ',
      customer: { first_name: ' Ama ', email: 'ama@example.com ' },
    });
    expect(otherPayment('withdraw', row, spaced)).toBeUndefined();
  });

  it('names a row that differs only by its phone as another payment', () => {
    expect(otherPayment('withdraw', { ...row, phone: '0201234568' }, record())).toBe('phone +233201234567');
    expect(otherPayment('withdraw', { ...row, phone: '+233551234567' }, record())).toBe(
      'phone +233201234567',
    );
  });

  it('names each field that differs, in order: kind, amount, currency, phone, e-mail, names', () => {
    expect(
      otherPayment(
        'deposit',
        {
          amount: '26',
          currency: 'NGN',
          phone: '0209999999',
          email: 'b@x.org',
          first_name: 'Kofi',
          last_name: 'Boateng',
        },
        record(),
      ),
    ).toBe(
      'a withdraw, amount 25.00, currency GHS, phone +233201234567, e-mail ama@example.com, first name Ama, last name Mensah',
    );
    expect(otherPayment('withdraw', { ...row, amount: '25.001' }, record())).toBe('amount 25.00');
    expect(otherPayment('withdraw', { ...row, email: 'x@example.com' }, record())).toBe(
      'e-mail ama@example.com',
    );
    expect(otherPayment('withdraw', { ...row, last_name: 'Owusu' }, record())).toBe('last name Mensah');
  });

  it('compares only what both hold: a record written before mpay kept a field, or a row without it', () => {
    expect(
      otherPayment('withdraw', row, record({ customer: undefined, amount: undefined, currency: undefined })),
    ).toBeUndefined();
    expect(
      otherPayment(
        'withdraw',
        { ...row, phone: '', email: '', first_name: '', last_name: '', amount: '' },
        record(),
      ),
    ).toBeUndefined();
    expect(otherPayment('withdraw', { currency: 'GHS' }, record())).toBeUndefined();
  });
});

// The checker itself (flows/batch/batch-check.ts BatchChecker), row by row as a batch runs it: the problems it
// reports are the batch's table (exit 2, nothing sent), and its digest names the batch's lock.
const cedi = (over: Partial<MerchantCurrency> = {}): MerchantCurrency =>
  ({
    id: 1,
    name: 'Ghana Cedi',
    code: 'GHS',
    country: { id: 1, name: 'Ghana', code: 'GH' },
    min_withdraw: 5,
    max_withdraw: 20000,
    weekly_withdraw: 1000,
    weckly_deposite: 5000,
    deposite: true,
    withdraw: true,
    total_balance: 25000,
    getway_configuration: [
      {
        id: 12,
        type: 'disbursement',
        minimum_fees: 1,
        fee_in_percentage: 2,
        gateway: { id: 1, name: 'MTN' },
      },
      { id: 11, type: 'collection', minimum_fees: 0, fee_in_percentage: 1, gateway: { id: 1, name: 'MTN' } },
      {
        id: 21,
        type: 'collection',
        minimum_fees: 0,
        fee_in_percentage: 1,
        gateway: { id: 2, name: 'Vodafone' },
      },
    ],
    ...over,
  }) as MerchantCurrency;

const line = (n: number, over: Record<string, string> = {}): BatchRow => ({
  row: n,
  values: {
    currency: 'GHS',
    amount: '25',
    first_name: 'Ama',
    last_name: 'Mensah',
    phone: '0201234567',
    email: 'ama@example.com',
    reference: `row-${n}`,
    ...over,
  },
});

/** The problems of these rows, as `row field: message`. */
function problemsOf(
  rows: BatchRow[],
  opts: {
    kind?: 'deposit' | 'withdraw';
    currencies?: MerchantCurrency[];
    recent?: JournalRecord[];
  } & ConstructorParameters<typeof BatchChecker>[3] = {},
): string[] {
  const c = new BatchChecker(opts.kind ?? 'withdraw', opts.currencies ?? [cedi()], opts.recent ?? [], opts);
  for (const r of rows) c.check(r);
  c.done();
  return c.problems.map((p) => `${p.row} ${p.field}: ${p.message}`);
}

const here: Place = { server: 'http://127.0.0.1:1', merchant: 'mk-here', profile: 'default', env: 'sandbox' };

beforeAll(() => loadPhoneRules());

describe('rowReference', () => {
  it("is the file's reference, else one of the row's content and position, per kind", () => {
    expect(rowReference('withdraw', line(1))).toBe('row-1');
    const a = rowReference('withdraw', line(1, { reference: '' }));
    expect(a).toMatch(/^mpay-wb-[0-9a-f]{12}-1$/);
    expect(rowReference('deposit', line(1, { reference: '' }))).toBe(a.replace('mpay-wb-', 'mpay-db-'));
    // another position, or any other column, is another reference; the same row is the same one
    expect(rowReference('withdraw', line(1, { reference: '' }))).toBe(a);
    expect(rowReference('withdraw', line(2, { reference: '' })).slice(0, 20)).not.toBe(a.slice(0, 20));
    for (const col of [
      'currency',
      'amount',
      'first_name',
      'last_name',
      'phone',
      'email',
      'gateway',
      'wallet',
      'country',
    ])
      expect(rowReference('withdraw', line(1, { reference: '', [col]: 'x' }))).not.toBe(a);
    // a column left out (a row of NDJSON) and one left empty (the same row as CSV) are the same row
    expect(rowReference('withdraw', line(1, { reference: '', country: '', gateway: '', wallet: '' }))).toBe(
      a,
    );
  });
});

describe('BatchChecker', () => {
  it('a reference twice in the file is a problem of the later row, naming the first', () => {
    expect(problemsOf([line(1), line(2, { reference: 'row-1', phone: '0201234568' })])).toEqual([
      '2 reference: the same as row 1',
    ]);
    expect(problemsOf([line(1, { reference: 'bad ref' })])).toEqual([
      expect.stringMatching(/^1 reference: letters, digits/),
    ]);
  });

  it("the batch's digest is its references in order: the same rows give the same lock, another order or row another", () => {
    const digest = (rows: BatchRow[]) => {
      const c = new BatchChecker('withdraw', [cedi()], []);
      for (const r of rows) c.check(r);
      return c.digest();
    };
    const same = digest([line(1), line(2)]);
    expect(same).toMatch(/^[0-9a-f]{64}$/);
    expect(digest([line(1, { amount: '30' }), line(2)])).toBe(same);
    expect(digest([line(2), line(1)])).not.toBe(same);
    expect(digest([line(1)])).not.toBe(same);
    // "row-1\nrow-2" is not "row-1row-2\n": each reference is delimited
    expect(digest([line(1, { reference: 'row-1row-2' })])).not.toBe(same);
  });

  it('a row like one sent in the last seven days under another reference is refused, unless --allow-repeats', () => {
    const sent = record({
      reference: 'old-1',
      hash_token: 'abcdef0123',
      created_at: '2026-11-20T10:00:00.000Z',
    });
    const repeat =
      '1 reference: the same withdraw (customer, amount, currency) as old-1, sent 2026-11-20; --allow-repeats sends it again';
    expect(problemsOf([line(1)], { recent: [sent] })).toEqual([repeat]);
    // by the phone alone, or by the e-mail alone, in any spelling of the amount and currency
    expect(
      problemsOf([line(1, { email: 'other@example.com', amount: '25.0', currency: 'ghs' })], {
        recent: [sent],
      }),
    ).toEqual([repeat]);
    expect(
      problemsOf([line(1, { phone: '0209999999', email: ' AMA@example.com' })], { recent: [sent] }),
    ).toEqual([repeat]);
    expect(problemsOf([line(1)], { recent: [sent], allowRepeats: true })).toEqual([]);
    // not the same payment: another amount, currency, kind, or customer
    expect(problemsOf([line(1, { amount: '26' })], { recent: [sent] })).toEqual([]);
    expect(
      problemsOf([line(1, { phone: '0209999999', email: 'x@example.com' })], { recent: [sent] }),
    ).toEqual([]);
    expect(problemsOf([line(1)], { recent: [{ ...sent, kind: 'deposit' }] })).toEqual([]);
    expect(problemsOf([line(1)], { recent: [{ ...sent, currency: 'NGN' }] })).toEqual([]);
    // its own reference is no repeat
    expect(problemsOf([line(1, { reference: 'old-1' })], { recent: [sent] })).toEqual([]);
  });

  it('a payment that failed, was cancelled, or whose initiate the API refused is no repeat; one whose answer was lost is', () => {
    const sent = record({ reference: 'old-1', created_at: '2026-11-20T10:00:00.000Z' });
    const initiate = (outcome: 'ok' | 'failed' | 'sent') => ({
      step: 'initiate' as const,
      outcome,
      at: sent.created_at,
    });
    expect(
      problemsOf([line(1)], { recent: [{ ...sent, hash_token: 'abcdef0123', status: 'failed' }] }),
    ).toEqual([]);
    expect(
      problemsOf([line(1)], { recent: [{ ...sent, hash_token: 'abcdef0123', status: 'cancelled' }] }),
    ).toEqual([]);
    expect(problemsOf([line(1)], { recent: [{ ...sent, steps: [initiate('failed')] }] })).toEqual([]);
    expect(problemsOf([line(1)], { recent: [{ ...sent, steps: [initiate('sent')] }] })).toHaveLength(1);
    // a refused initiate whose record was moved to another server since (`history move`) is still refused
    const moved = {
      step: 'moved' as const,
      outcome: 'ok' as const,
      at: sent.created_at,
      detail: 'from a to b',
    };
    expect(problemsOf([line(1)], { recent: [{ ...sent, steps: [initiate('failed'), moved] }] })).toEqual([]);
    // an initiate refused, then tried again and its answer lost: it may have made one
    expect(
      problemsOf([line(1)], { recent: [{ ...sent, steps: [initiate('failed'), initiate('sent')] }] }),
    ).toHaveLength(1);
    expect(
      problemsOf([line(1)], { recent: [{ ...sent, hash_token: 'abcdef0123', steps: [initiate('failed')] }] }),
    ).toHaveLength(1);
  });

  it('a reference the journal holds here: the same payment is known (run again), another payment is refused', async () => {
    const j = new Journal(tempDir(), 'default', 'sandbox', { place: here });
    j.append({
      reference: 'row-1',
      kind: 'withdraw',
      step: 'initiate',
      outcome: 'ok',
      hash_token: 'abcdef0123',
      data: { amount: '25', currency: 'GHS', customer: { phone: '+233201234567', email: 'ama@example.com' } },
    });
    const c = new BatchChecker('withdraw', [cedi()], [], { journal: j });
    c.check(line(1));
    expect(c.known).toBe(1);
    expect(c.problems).toEqual([]);
    // a row already journaled is never a repeat of itself or another, whatever the recent records say
    const again = new BatchChecker(
      'withdraw',
      [cedi()],
      [record({ reference: 'old-1', hash_token: 'ff00ff00ff' })],
      {
        journal: j,
      },
    );
    again.check(line(1));
    expect(again.problems).toEqual([]);
    const day = new Date().toISOString().slice(0, 10);
    expect(problemsOf([line(1, { phone: '0551234567' })], { journal: j })).toEqual([
      `1 reference: row-1 is in the journal for another payment (phone +233201234567, sent ${day}): give this row a reference of its own`,
    ]);
  });

  it('a reference that lives at another place is refused, naming it, and the batch learns where', () => {
    const cfg = tempDir();
    const there: Place = { ...here, server: 'http://127.0.0.1:2', profile: 'other' };
    new Journal(cfg, 'other', 'sandbox', { place: there }).append({
      reference: 'row-2',
      kind: 'withdraw',
      step: 'initiate',
      outcome: 'ok',
      hash_token: 'abcdef0123',
    });
    const c = new BatchChecker('withdraw', [cedi()], [], {
      journal: new Journal(cfg, 'default', 'sandbox', { place: here }),
    });
    c.check(line(1));
    c.check(line(2));
    expect(c.problems.map((p) => `${p.row} ${p.field}: ${p.message}`)).toEqual([
      '2 reference: sent before to http://127.0.0.1:2 (profile other, env sandbox); --new-batch runs it here as new',
    ]);
    expect(c.elsewhere).toEqual(there);
    expect(c.known).toBe(0);
    // --new-batch: the journal finds nothing here, and the row is new
    const fresh = new BatchChecker('withdraw', [cedi()], [], {
      journal: new Journal(cfg, 'default', 'sandbox', { place: here, newHere: true }),
    });
    fresh.check(line(2));
    expect(fresh.problems).toEqual([]);
    expect(fresh.elsewhere).toBeUndefined();
  });

  it("the weekly limit counts the file and the week's payments that made something, not this file's own rows", () => {
    const week = (reference: string, amount: string, over: Partial<JournalRecord> = {}) =>
      record({ reference, amount, hash_token: 'abcdef0123', customer: {}, ...over });
    // 1000 a week: 400 + 300 in the file, 300 before: exactly the limit passes
    const rows = [
      line(1, { amount: '400' }),
      line(2, { amount: '300', phone: '0201234568', email: 'b@x.org' }),
    ];
    expect(problemsOf(rows, { recent: [week('w-1', '300')] })).toEqual([]);
    const over =
      '0 amount: GHS: 700 in this file and 300.01 in the last seven days pass the weekly limit of 1000';
    expect(problemsOf(rows, { recent: [week('w-1', '300.01')] })).toEqual([over]);
    expect(problemsOf(rows, { recent: [week('w-1', '300'), week('w-2', '0.01')] })).toEqual([
      over.replace('300.01', '300.01'),
    ]);
    // not counted: another kind or currency, a failed or cancelled one, an initiate refused, this file's rows
    const initiate = (outcome: 'ok' | 'failed' | 'sent') => ({
      step: 'initiate' as const,
      outcome,
      at: '2026-11-20T00:00:00.000Z',
    });
    for (const notCounted of [
      week('w-2', '500', { kind: 'deposit' }),
      week('w-2', '500', { currency: 'NGN' }),
      week('w-2', '500', { status: 'failed' }),
      week('w-2', '500', { status: 'cancelled' }),
      week('w-2', '500', { hash_token: undefined, steps: [initiate('failed')] }),
      week('row-1', '500'),
    ])
      expect(problemsOf(rows, { recent: [week('w-1', '300'), notCounted] })).toEqual([]);
    // counted: an initiate whose answer was lost (no hash token) may have made one
    expect(
      problemsOf(rows, {
        recent: [week('w-1', '300'), week('w-2', '1', { hash_token: undefined, steps: [initiate('sent')] })],
      }),
    ).toEqual([over.replace('300.01', '301')]);
    // a record moved to another server since: its refused initiate counts for nothing, a lost one counts
    const moved = {
      step: 'moved' as const,
      outcome: 'ok' as const,
      at: '2026-11-21T00:00:00.000Z',
      detail: 'from a to b',
    };
    const lost = (outcome: 'failed' | 'sent') =>
      week('w-2', '1', { hash_token: undefined, steps: [initiate(outcome), moved] });
    expect(problemsOf(rows, { recent: [week('w-1', '300'), lost('failed')] })).toEqual([]);
    expect(problemsOf(rows, { recent: [week('w-1', '300'), lost('sent')] })).toEqual([
      over.replace('300.01', '301'),
    ]);
    // each currency is held to its own limit
    const naira = cedi({
      id: 2,
      code: 'NGN',
      country: { id: 2, name: 'Nigeria', code: 'NG' } as MerchantCurrency['country'],
      weekly_withdraw: 10_000_000,
    });
    expect(problemsOf(rows, { currencies: [naira, cedi()], recent: [week('w-1', '300.01')] })).toEqual([
      over,
    ]);
    // a deposit batch is held to the deposit limit
    expect(problemsOf([line(1, { amount: '5001', gateway: '1' })], { kind: 'deposit', recent: [] })).toEqual([
      '0 amount: GHS: 5001 in this file and 0 in the last seven days pass the weekly limit of 5000',
    ]);
    expect(problemsOf([line(1, { amount: '5000', gateway: '1' })], { kind: 'deposit', recent: [] })).toEqual(
      [],
    );
    // no limit: none to pass
    expect(
      problemsOf([line(1, { amount: '9000' })], {
        currencies: [cedi({ weekly_withdraw: null, max_withdraw: null })],
      }),
    ).toEqual([]);
  });

  it("each row's currency: offered, in one country, open to the kind; the phone, the gateway and the amount as its rules say", () => {
    const ghana = cedi();
    const ivory = cedi({
      id: 9,
      country: { id: 9, name: 'Ghana bis', code: 'GB' } as MerchantCurrency['country'],
    });
    expect(problemsOf([line(1, { currency: 'XOF' })])).toEqual([
      "1 currency: unknown currency XOF: not one of the merchant's currencies",
    ]);
    expect(problemsOf([line(1)], { currencies: [ghana, ivory] })).toEqual([
      '1 country: GHS is offered in several countries: give the country',
    ]);
    expect(problemsOf([line(1, { country: 'gh' })], { currencies: [ghana, ivory] })).toEqual([]);
    expect(problemsOf([line(1)], { currencies: [cedi({ withdraw: false })] })).toEqual([
      '1 currency: withdrawals are not enabled for GHS',
    ]);
    expect(problemsOf([line(1)], { kind: 'deposit', currencies: [cedi({ deposite: false })] })).toEqual([
      '1 currency: deposits are not enabled for GHS',
    ]);
    expect(problemsOf([line(1, { phone: '' })])).toEqual(['1 phone: required']);
    expect(problemsOf([line(1, { phone: '12' })])).toEqual([expect.stringMatching(/^1 phone: /)]);
    expect(problemsOf([line(1, { gateway: '2' })])).toEqual(['1 gateway: not open to withdrawals in GHS: 1']);
    expect(problemsOf([line(1, { gateway: ' 1 ' })])).toEqual([]);
    // a deposit in GHS has two gateways open: the row must name one
    expect(problemsOf([line(1)], { kind: 'deposit' })).toEqual([
      '1 gateway: required: GHS has 2 open (1, 2)',
    ]);
    expect(problemsOf([line(1, { gateway: '2' })], { kind: 'deposit' })).toEqual([]);
    expect(problemsOf([line(1, { amount: '4' })])).toEqual([
      '1 amount: below the withdrawal minimum of 5 GHS',
    ]);
    expect(problemsOf([line(1, { amount: '4' })], { force: true })).toEqual([]);
    expect(problemsOf([line(1, { amount: '', currency: '' })])).toEqual([
      '1 currency: required',
      '1 amount: required',
    ]);
  });

  it("totals each currency's amount, rows and fees (the row's gateway's, else the first open one's)", () => {
    const c = new BatchChecker('withdraw', [cedi()], []);
    c.check(line(1, { amount: '100' }));
    c.check(line(2, { amount: '10', gateway: '1', phone: '0201234568', email: 'b@x.org' }));
    c.check(line(3, { amount: 'x', phone: '0201234569', email: 'c@x.org' }));
    expect(c.count).toBe(3);
    // 2% of 100, and the minimum fee of 1 for 10 (2% is 0.2)
    expect(c.totals.get('GHS')).toEqual({ amount: '110', rows: 2, fees: 3 });
  });

  it("each row's own values as their flags are checked: required ones, bad ones, an optional one only when given, the wallet a switch", () => {
    expect(problemsOf([line(1, { first_name: '', email: '' })])).toEqual([
      '1 first_name: required',
      '1 email: required',
    ]);
    expect(problemsOf([line(1, { first_name: 'Ama1', last_name: 'M3nsah', email: 'ama@' })])).toEqual([
      '1 first_name: letters, spaces, apostrophes, dots and hyphens only',
      '1 email: an e-mail address such as ama@example.com',
      '1 last_name: letters, spaces, apostrophes, dots and hyphens only',
    ]);
    expect(problemsOf([line(1, { last_name: '' })])).toEqual([]);
    expect(problemsOf([line(1, { wallet: 'yes' })])).toEqual(['1 wallet: true or false']);
    expect(problemsOf([line(1, { wallet: 'TRUE' })])).toEqual(['1 wallet: true or false']);
    expect(
      problemsOf([line(1, { wallet: 'true' }), line(2, { wallet: 'false', phone: '0201234568' })]),
    ).toEqual([]);
  });

  it("a currency and a country in any case and with blanks around them are the merchant's; a country it is not offered in is named", () => {
    expect(problemsOf([line(1, { currency: ' ghs ', country: ' gh ' })])).toEqual([]);
    expect(problemsOf([line(1, { country: 'NG' })])).toEqual([
      "1 country: unknown country NG: none of the merchant's currencies is in it; GHS is offered in GH",
    ]);
    // a repeat is known whatever the spelling of the currency, on either side
    const sent = record({ reference: 'old-1', hash_token: 'abcdef0123' });
    const repeat = [
      '1 reference: the same withdraw (customer, amount, currency) as old-1, sent 2026-11-27; --allow-repeats sends it again',
    ];
    expect(problemsOf([line(1, { currency: 'Ghs' })], { recent: [{ ...sent, currency: ' ghs ' }] })).toEqual(
      repeat,
    );
    expect(problemsOf([line(1, { currency: ' Ghs ' })], { recent: [sent] })).toEqual(repeat);
  });

  it('a row and a payment sent without a phone, or without an e-mail, are not the same customer by that missing value', () => {
    const sent = (customer: JournalRecord['customer']) =>
      record({ reference: 'old-1', hash_token: 'abcdef0123', customer });
    // no phone on either side, other e-mails: not alike
    expect(
      problemsOf([line(1, { phone: '', email: 'b@x.org' })], {
        recent: [sent({ email: 'ama@example.com' })],
      }),
    ).toEqual(['1 phone: required']);
    expect(
      problemsOf([line(1, { phone: '+()', email: 'b@x.org' })], {
        recent: [sent({ phone: '--', email: 'ama@example.com' })],
      }),
    ).toEqual([expect.stringMatching(/^1 phone: a phone number/)]);
    // no e-mail on either side, other phones: not alike
    expect(
      problemsOf([line(1, { email: '' })], { recent: [sent({ phone: '+233209999999', email: '' })] }),
    ).toEqual(['1 email: required']);
    expect(problemsOf([line(1, { email: '' })], { recent: [sent({ phone: '+233209999999' })] })).toEqual([
      '1 email: required',
    ]);
  });

  it('a gateway named where none is open says none; fees are those of the gateway the row names, none where none is open', () => {
    /** A currency whose open gateways of one type are these: [gateway id, fee in percent, minimum fee]. */
    const openTo = (type: 'collection' | 'disbursement', ...gateways: [number, number, number][]) =>
      cedi({
        getway_configuration: gateways.map(([id, percent, minimum], i) => ({
          id: 100 + i,
          type,
          minimum_fees: minimum,
          fee_in_percentage: percent,
          gateway: { id, name: `gateway ${id}` },
        })) as MerchantCurrency['getway_configuration'],
      });
    const collectionOnly = openTo('collection', [1, 1, 0]);
    expect(problemsOf([line(1, { gateway: '1' })], { currencies: [collectionOnly] })).toEqual([
      '1 gateway: not open to withdrawals in GHS: none',
    ]);
    const twoOpen = openTo('disbursement', [1, 2, 1], [2, 2, 1]);
    expect(problemsOf([line(1, { gateway: '3' })], { currencies: [twoOpen] })).toEqual([
      '1 gateway: not open to withdrawals in GHS: 1, 2',
    ]);
    const none = new BatchChecker('withdraw', [collectionOnly], []);
    none.check(line(1, { amount: '100' }));
    expect(none.problems).toEqual([]);
    expect(none.totals.get('GHS')).toEqual({ amount: '100', rows: 1, fees: 0 });
    // a deposit by gateway 2 (3%), not by the first open one (1%)
    const two = openTo('collection', [1, 1, 0], [2, 3, 0]);
    const deposit = new BatchChecker('deposit', [two], []);
    deposit.check(line(1, { amount: '100', gateway: ' 2 ' }));
    deposit.check(line(2, { amount: '200', gateway: '1', phone: '0201234568' }));
    expect(deposit.problems).toEqual([]);
    expect(deposit.totals.get('GHS')).toEqual({ amount: '300', rows: 2, fees: 5 });
  });

  it('a reference sent before from a journal that kept no place is refused all the same; the batch keeps the first place it learns', () => {
    const cfg = tempDir();
    const sent = (profile: string, place: Place | undefined, reference: string) =>
      new Journal(cfg, profile, 'sandbox', { place }).append({
        reference,
        kind: 'withdraw',
        step: 'initiate',
        outcome: 'ok',
        hash_token: 'abcdef0123',
      });
    const first: Place = { ...here, server: 'http://127.0.0.1:2', profile: 'second' };
    const second: Place = { ...here, server: 'http://127.0.0.1:3', profile: 'third' };
    sent('other', undefined, 'row-1');
    sent('second', first, 'row-2');
    sent('third', second, 'row-3');
    const c = new BatchChecker('withdraw', [cedi()], [], {
      journal: new Journal(cfg, 'default', 'sandbox', { place: here }),
    });
    c.check(line(2, { phone: '0201234568' }));
    c.check(line(3, { phone: '0201234569' }));
    c.check(line(1));
    expect(c.problems.map((p) => `${p.row} ${p.field}: ${p.message}`)).toEqual([
      '2 reference: sent before to http://127.0.0.1:2 (profile second, env sandbox); --new-batch runs it here as new',
      '3 reference: sent before to http://127.0.0.1:3 (profile third, env sandbox); --new-batch runs it here as new',
      '1 reference: sent before to ? (profile ?, env ?); --new-batch runs it here as new',
    ]);
    expect(c.elsewhere).toEqual(first);
    const unknown = new BatchChecker('withdraw', [cedi()], [], {
      journal: new Journal(cfg, 'default', 'sandbox', { place: here }),
    });
    unknown.check(line(1));
    expect(unknown.elsewhere).toEqual({ server: '?', merchant: '?', profile: '?', env: '?' });
  });

  it('a journal that cannot be read stops the check with its error: its rows are not taken as new, nor as sent elsewhere', () => {
    const cfg = tempDir();
    const j = new Journal(cfg, 'default', 'sandbox', { place: here });
    // a file put where the journal's folder goes, after the journal was opened
    writeFileSync(join(cfg, 'journal'), 'not a folder');
    const c = new BatchChecker('withdraw', [cedi()], [], { journal: j });
    expect(() => c.check(line(1))).toThrow(/ENOTDIR/);
    expect(c.elsewhere).toBeUndefined();
  });
});

describe('inputsOf', () => {
  it("a checked row as the flow's inputs: an empty optional column left out, the wallet a switch, the gateway a number", () => {
    const bare = line(3, { country: '', last_name: '', gateway: '', reference: '', wallet: '' });
    expect(inputsOf('withdraw', bare)).toEqual({
      currency: 'GHS',
      country: undefined,
      amount: '25',
      firstName: 'Ama',
      lastName: undefined,
      phone: '0201234567',
      email: 'ama@example.com',
      reference: rowReference('withdraw', bare),
      wallet: undefined,
    });
    expect(inputsOf('withdraw', bare).reference).toMatch(/^mpay-wb-[0-9a-f]{12}-3$/);
    expect(inputsOf('deposit', bare).reference).toMatch(/^mpay-db-[0-9a-f]{12}-3$/);
    const full = line(4, { country: 'gh', gateway: '2', wallet: 'true' });
    expect(inputsOf('deposit', full)).toEqual({
      currency: 'GHS',
      country: 'gh',
      amount: '25',
      firstName: 'Ama',
      lastName: 'Mensah',
      phone: '0201234567',
      email: 'ama@example.com',
      gateway: 2,
      reference: 'row-4',
      wallet: true,
    });
    expect(inputsOf('deposit', line(4, { wallet: 'false' })).wallet).toBe(false);
    // the gateway as the check compared it: a row of NDJSON keeps the blanks around it
    expect(inputsOf('deposit', line(4, { gateway: ' 2 ' })).gateway).toBe(2);
  });
});
