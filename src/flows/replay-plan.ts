// What a trace's calls make of each other before anything is sent (replay.ts sends them): the initiates
// whose hash tokens the later calls carry, the calls that cannot be replayed (their transaction was
// started elsewhere), stand-ins for the personal data a support bundle masked, and what a dry run shows.
import type { RecordedCall } from '../api/har-read.js';
import { apiEndpoints } from '../api/har-read.js';
import { Secrets } from '../api/redact.js';

/** A call as a dry run shows it: what would go out, with the values only the run itself can know named. */
export interface PlannedCall {
  index: number;
  method: 'GET' | 'POST';
  /** the URL path after /restapi/v1, as the text shows it: `/payments/initiate` */
  path: string;
  body?: Record<string, unknown>;
  skipped?: string;
}

/** A field's value as text: a string, or a number written out. */
export const textOf = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** The `data` of an answer's JSON, when it is an object. */
export function dataOf(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const d = (JSON.parse(text ?? '') as { data?: unknown }).data;
    return d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The hash token each recorded initiate answered with: what the later calls of its transaction carry. */
export function recordedInitiates(calls: RecordedCall[]): Map<string, number> {
  const out = new Map<string, number>();
  calls.forEach((c, i) => {
    const ep = apiEndpoints[c.endpoint];
    if (!('money' in ep) || ep.money.step !== 'initiate') return;
    const hash = textOf(dataOf(c.response.text)?.has_token);
    if (hash) out.set(hash, i);
  });
  return out;
}

/** Why a call cannot be replayed, before anything is sent: a hash token that no initiate of the trace made. */
export function unreplayable(calls: RecordedCall[]): Map<number, string> {
  const made = recordedInitiates(calls);
  const out = new Map<number, string>();
  calls.forEach((c, i) => {
    const hash = textOf(c.body?.hash_token);
    const ep = apiEndpoints[c.endpoint];
    // A money call after the initiate names its transaction by its hash token alone: without one there is
    // no transaction to send it for, nor to journal it under.
    if ('money' in ep && ep.money.step !== 'initiate' && !hash)
      return void out.set(i, 'not sent: a money call that names no transaction (no hash token)');
    if (c.body && 'hash_token' in c.body) {
      const from = hash === undefined ? undefined : made.get(hash);
      if (from === undefined || from > i)
        out.set(
          i,
          'not sent: its hash token comes from no initiate of this trace (the transaction was started elsewhere)',
        );
    }
  });
  return out;
}

/** Personal data a support bundle masked (a•••@example.com, ••••••567): stood in for with a valid value. */
export function standIn(field: string, v: unknown): unknown {
  if (typeof v !== 'string' || !v.includes('•')) return v;
  if (/email/i.test(field)) return `replay@${v.includes('@') ? v.slice(v.indexOf('@') + 1) : 'example.com'}`;
  if (/phone/i.test(field)) return `+1555${v.replace(/\D/g, '').padStart(7, '0')}`;
  return v.replace(/•/g, 'x');
}

/** What a dry run prints: each call as it would go out, secrets and run-time values named, not shown. */
export function planReplay(calls: RecordedCall[]): PlannedCall[] {
  const skipped = unreplayable(calls);
  const made = recordedInitiates(calls);
  return calls.map((c, i) => {
    let body: Record<string, unknown> | undefined;
    if (c.body) {
      // no prototype: a field named __proto__ (or constructor) is a field like any other
      body = Object.create(null) as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.body)) {
        if (k === 'customer_transaction_id') body[k] = '<a new reference>';
        else if (k === 'hash_token') {
          const from = made.get(textOf(v) ?? '');
          body[k] = from === undefined ? v : `<the hash token of call ${from + 1}>`;
        } else if (k === 'otp') body[k] = '<the one-time code: --otp>';
        else body[k] = standIn(k, v);
      }
      if (c.endpoint === 'POST auth/merchant/token/generate') body.merchant_key = '<your merchant key>';
      // by name here: the command scrubs the whole plan by the run's secrets too
      body = new Secrets().value(body) as Record<string, unknown>;
    }
    return {
      index: i + 1,
      method: c.method,
      path: `/${c.path}`,
      ...(body ? { body } : {}),
      ...(skipped.has(i) ? { skipped: skipped.get(i) } : {}),
    };
  });
}
