// What a trace's calls make of each other before anything is sent (replay.ts sends them): the initiates
// whose hash tokens the later calls carry, the calls that cannot be replayed (their transaction was
// started elsewhere), stand-ins for the personal data a support bundle masked, and the plan: each call as
// it goes out, which the replay sends and a dry run shows.
import type { RecordedCall } from '../../api/har-read.js';
import type { Credentials } from '../../api/credentials.js';
import { apiBase, endpoint, neutralCustomer } from '../../api/endpoints.js';
import { dataOf } from '../../api/response.js';

/** A call as a dry run shows it: what would go out, with the values only the run itself can know named. */
export interface PlannedCall {
  index: number;
  method: 'GET' | 'POST';
  /** the URL path after /restapi/v1, with its leading slash */
  path: string;
  /** where it goes: the run's server */
  url: string;
  /** exactly what is sent, the run's own values named by `placeholders` */
  body?: Record<string, unknown>;
  skipped?: string;
}

/** A field's value as text: a string, or a number written out. */
export const textOf = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** The hash token each recorded initiate answered with: what the later calls of its transaction carry. */
export function recordedInitiates(calls: RecordedCall[]): Map<string, number> {
  const out = new Map<string, number>();
  calls.forEach((c, i) => {
    if (endpoint(c.endpoint).money?.step !== 'initiate') return;
    const hash = textOf(dataOf(c.response.text).has_token);
    if (hash) out.set(hash, i);
  });
  return out;
}

/** Why a call cannot be replayed, before anything is sent: a hash token that no initiate of the trace made. */
export function unreplayable(calls: RecordedCall[]): Map<number, string> {
  // a value that is no hash token (no text) is found under no initiate
  const made: ReadonlyMap<unknown, number> = recordedInitiates(calls);
  const out = new Map<number, string>();
  calls.forEach((c, i) => {
    const hash = textOf(c.body?.hash_token);
    const ep = endpoint(c.endpoint);
    // A money call after the initiate names its transaction by its hash token alone: without one there is
    // no transaction to send it for, nor to journal it under.
    if (ep.money && ep.money.step !== 'initiate' && !hash)
      return void out.set(i, 'not sent: a money call that names no transaction (no hash token)');
    if (c.body && 'hash_token' in c.body) {
      const from = made.get(hash);
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

/**
 * The run's own values a plan names, not shows: only the run, or an answer of it, supplies them. Each made
 * where it is used, not once when the module loads (so a mutation test can change what it is).
 */
export const placeholders = {
  reference: () => '<a new reference>',
  otp: () => '<the one-time code: --otp>',
  hash: (call: number) => `<the hash token of call ${call}>`,
};

/** Whether a planned value is the placeholder of a hash token an earlier call's answer supplies. */
export const isHashPlaceholder = (v: unknown) =>
  typeof v === 'string' && /^<the hash token of call \d+>$/.test(v);

/** What a replay's plan is built from besides the trace: this run's credentials and server. */
export interface PlanRun {
  credentials: Credentials;
  /** the server the calls go to (its base URL) */
  server: string;
  /**
   * the recorded customer's personal data is replaced by neutral values (the same --save-scenario
   * writes): on any server but a sandbox, unless --keep-customer
   */
  neutral: boolean;
}

/**
 * The replay as one plan, built once: each call as it goes out (replay.ts sends exactly these bodies, and
 * --dry-run prints them), with the run's credentials (never the trace's), neutral customer data where the
 * run asks for it, and the values only the run or an answer supplies (a fresh reference, a hash token, the
 * one-time code) named by placeholders. What each field is comes from the endpoint table.
 */
export function planReplay(calls: RecordedCall[], run: PlanRun): PlannedCall[] {
  const skipped = unreplayable(calls);
  // a value that is no hash token (no text) is found under no initiate
  const made: ReadonlyMap<unknown, number> = recordedInitiates(calls);
  const cred = run.credentials;
  const fromRun: Record<string, unknown> = {
    merchant_key: cred.merchantKey,
    api_key: cred.apiKey,
    // site_id is an integer in the spec; a numeric one goes out as a JSON number, as the client sends it
    site_id: /^\d+$/.test(String(cred.siteId)) ? Number(cred.siteId) : cred.siteId,
  };
  return calls.map((c, i) => {
    const ep = endpoint(c.endpoint);
    let body: Record<string, unknown> | undefined;
    if (c.body) {
      // no prototype: a field named __proto__ (or constructor) is a field like any other
      body = Object.create(null) as Record<string, unknown>;
      const initiate = ep.money?.step === 'initiate';
      for (const [k, v] of Object.entries(c.body)) {
        if (ep.credentials.includes(k)) body[k] = fromRun[k];
        else if (ep.names.includes(k) && initiate) body[k] = placeholders.reference();
        else if (ep.names.includes(k)) {
          const from = made.get(textOf(v));
          body[k] = from === undefined ? v : placeholders.hash(from + 1);
        } else if (ep.secret.includes(k)) body[k] = placeholders.otp();
        else if (ep.personal.includes(k) && run.neutral && neutralCustomer[k])
          body[k] = neutralCustomer[k](v);
        else body[k] = standIn(k, v);
      }
      // a token is asked for with the run's merchant key, an initiate made under a fresh reference
      if (ep.token) body.merchant_key = fromRun.merchant_key;
      if (initiate) for (const k of ep.names) body[k] = placeholders.reference();
    }
    return {
      index: i + 1,
      method: c.method,
      path: `/${c.path}`,
      // the run's base URL as mpay keeps it: no trailing slash (api/base-url.ts)
      url: `${run.server}${apiBase}${c.path}`,
      ...(body ? { body } : {}),
      ...(skipped.has(i) ? { skipped: skipped.get(i) } : {}),
    };
  });
}
