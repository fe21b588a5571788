// A batch row's identity (flows/batch-check.ts), in this process: the journal's record of a row's
// reference is the same payment only when kind, amount, currency and every contact it holds agree; a
// phone is compared by its digits, whatever its spelling. The batch runs end to end are in batch.test.ts.
import { describe, expect, it } from 'vitest';
import { otherPayment } from '../src/flows/batch-check.js';
import type { JournalRecord } from '../src/journal/records.js';

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
