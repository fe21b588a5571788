// The checks of a batch before anything is sent: its columns, each row's reference (the file's, or one
// derived from the row's content and position), every row checked as a single flow would be (against one
// read of the merchant's currencies), duplicate references, rows sent before elsewhere or under other
// references, and each currency's weekly limit over the file and the journal's last seven days.
// batch-row.ts runs the rows; `withdraw batch confirm`'s rows are checked and run in batch-confirm.ts.
import { createHash } from 'node:crypto';
import { gatewayTypeOf, type PaymentKind } from '../../api/enums.js';
import { ElsewhereError } from '../../common/errors.js';
import type { GatewayConfiguration, MerchantCurrency } from '../../api/schemas.js';
import type { JournalRecord, Place } from '../../journal/records.js';
import type { JournalLike } from '../../journal/journal.js';
import { checkAmount, currencyMismatch, enabled } from '../payment/gather.js';
import { fields, problem } from '../payment/inputs.js';
import { internationalPhone } from '../payment/phones.js';
import { title, type FlowInputs } from '../types.js';
import { parseInputs } from '../payment/inputs.js';
import { compareDecimals, decimalKey, sumDecimals } from '../../common/decimal.js';

/** The columns of a batch file: the flow's flag names with underscores. */
export const batchColumns = [
  'currency',
  'country',
  'amount',
  'first_name',
  'last_name',
  'phone',
  'email',
  'gateway',
  'reference',
  'wallet',
] as const;

export interface BatchRow {
  /** 1-based, the header not counted */
  row: number;
  values: Record<string, string>;
}

/** How a repeat's problem ends: the batch's closing hint looks for it. */
export const repeatAdvice = '--allow-repeats sends it again';

export interface RowProblem {
  row: number;
  field: string;
  message: string;
}

/** The reference of a row: the file's, else one derived from the row's content and position. */
export function rowReference(kind: PaymentKind, r: BatchRow): string {
  if (r.values.reference) return r.values.reference;
  const digest = createHash('sha256')
    .update(JSON.stringify([r.row, ...batchColumns.map((c) => r.values[c] ?? '')]))
    .digest('hex')
    .slice(0, 12);
  return `mpay-${kind === 'deposit' ? 'd' : 'w'}b-${digest}-${r.row}`;
}

export function inputsOf(kind: PaymentKind, r: BatchRow): FlowInputs {
  const v = r.values;
  // The rows were checked before any was sent; this turns a row's strings into the flow's typed inputs.
  return parseInputs({
    currency: v.currency,
    country: v.country || undefined,
    amount: v.amount,
    firstName: v.first_name,
    lastName: v.last_name || undefined,
    phone: v.phone,
    email: v.email,
    // trimmed as the check compared it (a row of NDJSON keeps its blanks): ' 2 ' is gateway 2
    gateway: v.gateway?.trim() || undefined,
    reference: rowReference(kind, r),
    wallet: v.wallet === 'true' ? true : v.wallet === 'false' ? false : undefined,
  });
}

/** Checks the rows one by one, as they stream past; `done()` adds what needs the whole file. */
export class BatchChecker {
  readonly problems: RowProblem[] = [];
  readonly totals = new Map<string, { amount: string; rows: number; fees: number }>();
  /** where rows of this file were sent before, when that is another server, merchant or profile */
  elsewhere?: Place;
  /** the batch's identity: its references in order (a copy of the file, or one with CRLF, is the same) */
  private readonly identity = createHash('sha256');
  private readonly references = new Map<string, number>();
  private rows = 0;
  /** rows whose reference the journal holds here: a run again skips them when done, continues them else */
  known = 0;

  constructor(
    private readonly kind: PaymentKind,
    private readonly currencies: MerchantCurrency[],
    /** the journal's transactions of the last seven days, for the weekly limits */
    private readonly recent: JournalRecord[],
    private readonly opts: {
      /** --force: amounts outside the limits pass, for the API to judge */
      force?: boolean;
      /** the run's journal: a row whose reference lives at another place is a problem (elsewhere) */
      journal?: JournalLike;
      /** --allow-repeats: a row like one sent in the last seven days under another reference is sent */
      allowRepeats?: boolean;
    } = {},
  ) {}

  /**
   * The journal's transactions of the last seven days by what they paid (kind, currency, amount) and each
   * of the customer's identifiers on its own (phone, e-mail), not by reference: a row's reference depends
   * on its position in the file, so a row added or removed above it gives every row below a new one; and
   * a row edited in its name or one contact only is still the same customer. Made once, on first use.
   */
  private sentLike?: Map<string, JournalRecord>;

  private likeKeys(kind: string, currency: string, amount: string, email: string, phone: string): string[] {
    const paid = [kind, currency.trim().toUpperCase(), decimalKey(amount)].join('|');
    const digits = phoneDigits(phone);
    const mail = email.trim().toLowerCase();
    return [...(digits ? [`${paid}|phone|${digits}`] : []), ...(mail ? [`${paid}|email|${mail}`] : [])];
  }

  private alreadySent(r: BatchRow, ref: string): JournalRecord | undefined {
    if (!this.sentLike) {
      this.sentLike = new Map();
      for (const rec of this.recent) {
        const refused =
          !rec.hash_token && rec.steps.every((s) => s.step !== 'initiate' || s.outcome === 'failed');
        if (rec.kind !== this.kind || failedOrCancelled(rec) || refused) continue;
        const c = rec.customer ?? {};
        for (const key of this.likeKeys(
          rec.kind,
          rec.currency ?? '',
          rec.amount ?? '',
          c.email ?? '',
          c.phone ?? '',
        ))
          this.sentLike.set(key, rec);
      }
    }
    const v = r.values;
    for (const key of this.likeKeys(
      this.kind,
      v.currency ?? '',
      v.amount ?? '',
      v.email ?? '',
      v.phone ?? '',
    )) {
      const like = this.sentLike.get(key);
      if (like && like.reference !== ref) return like;
    }
    return undefined;
  }

  get count(): number {
    return this.rows;
  }

  check(r: BatchRow): void {
    this.rows++;
    const add: AddProblem = (field, message) => {
      this.problems.push({ row: r.row, field, message });
    };
    checkValues(r.values, add);
    this.checkReference(r, add);
    this.checkForCurrency(r.values, add);
  }

  /** The row's reference: well formed, once in the file, and new here (not sent before, nor elsewhere). */
  private checkReference(r: BatchRow, add: AddProblem): void {
    const ref = rowReference(this.kind, r);
    const why = problem(fields.reference, ref);
    if (why) add('reference', why);
    this.identity.update(`${ref}\n`);
    const seen = this.references.get(ref);
    if (seen !== undefined) add('reference', `the same as row ${seen}`);
    else this.references.set(ref, r.row);
    const found = lookUp(this.opts.journal, ref);
    if (found.here) {
      this.known++;
      const other = otherPayment(this.kind, r.values, found.here);
      if (other)
        add(
          'reference',
          `${ref} is in the journal for another payment (${other}, sent ${found.here.created_at.slice(0, 10)}): give this row a reference of its own`,
        );
    }
    // Only a row that would go out as new: one whose own reference the journal has is skipped or continued.
    const like = this.opts.allowRepeats || found.here ? undefined : this.alreadySent(r, ref);
    if (like)
      add(
        'reference',
        `the same ${this.kind} (customer, amount, currency) as ${like.reference}, sent ${like.created_at.slice(0, 10)}; ${repeatAdvice}`,
      );
    const there = found.elsewhere;
    if (there) {
      this.elsewhere ??= there;
      add('reference', `sent before to ${whereName(there)}; --new-batch runs it here as new`);
    }
  }

  /** What the row's currency decides: offered and open, the phone's dial code, the gateway, the limits. */
  private checkForCurrency(v: BatchRow['values'], add: AddProblem): void {
    const code = v.currency?.trim().toUpperCase();
    const country = v.country?.trim().toUpperCase();
    const matches = this.currencies.filter(
      (c) => c.code === code && (!country || c.country?.code === country),
    );
    if (!code) return;
    const currency = matches[0];
    if (!currency) {
      const mismatch = currencyMismatch(this.currencies, code, country);
      return add(
        mismatch?.field ?? 'currency',
        mismatch?.message ?? `${code} is not one of the merchant's currencies`,
      );
    }
    if (matches.length > 1)
      return add('country', `${code} is offered in several countries: give the country`);
    if (!enabled(this.kind, currency))
      return add(
        'currency',
        `${this.kind === 'deposit' ? 'deposits' : 'withdrawals'} are not enabled for ${code}`,
      );
    if (v.phone) {
      const phoneWhy = problem(internationalPhone(currency.country?.code), v.phone);
      if (phoneWhy) add('phone', phoneWhy);
    } else add('phone', 'required');
    const configs = (currency.getway_configuration ?? []).filter((g) => g.type === gatewayTypeOf(this.kind));
    const gateway = v.gateway?.trim();
    if (v.gateway && !configs.some((g) => String(g.gateway.id) === gateway))
      add(
        'gateway',
        `not open to ${title(this.kind)}s in ${code}: ${configs.map((g) => g.gateway.id).join(', ') || 'none'}`,
      );
    if (!v.gateway && configs.length > 1)
      add(
        'gateway',
        `required: ${code} has ${configs.length} open (${configs.map((g) => g.gateway.id).join(', ')})`,
      );
    if (v.amount && !problem(fields.amount, v.amount)) {
      const amountWhy = checkAmount(this.kind, v.amount, currency, { force: this.opts.force });
      if (amountWhy) add('amount', amountWhy);
      this.addToTotals(
        currency.code,
        v.amount,
        configs.find((g) => String(g.gateway.id) === gateway) ?? configs[0],
      );
    }
  }

  /** The row's amount and its fees (by `gw`: its gateway's, else the first open one's) added to its currency's. */
  private addToTotals(code: string, amount: string, gw: GatewayConfiguration | undefined): void {
    const t = this.totals.get(code) ?? { amount: '0', rows: 0, fees: 0 };
    t.amount = sumDecimals([t.amount, amount]);
    t.rows += 1;
    if (gw)
      t.fees += Math.max(
        Number(gw.minimum_fees ?? 0),
        (Number(amount) * Number(gw.fee_in_percentage ?? 0)) / 100,
      );
    this.totals.set(code, t);
  }

  /** The digest of the batch's references, once every row was checked: the name of its lock. */
  digest(): string {
    return this.identity.digest('hex');
  }

  /** The checks over the whole file: each currency's weekly limit, with the journal's last seven days. */
  done(): void {
    for (const [code, t] of this.totals) {
      const c = this.currencies.find((x) => x.code === code)!;
      const limit = this.kind === 'deposit' ? c.weckly_deposite : c.weekly_withdraw;
      if (limit == null) continue;
      // The week before this file: not its own rows (a run again would count them twice), and not an
      // initiate the API refused (it made nothing); one whose answer was lost may exist, and counts.
      const before = this.recent
        .filter(
          (r) =>
            r.kind === this.kind &&
            r.currency === code &&
            !failedOrCancelled(r) &&
            !this.references.has(r.reference) &&
            (r.hash_token !== undefined ||
              r.steps.some((s) => s.step === 'initiate' && s.outcome !== 'failed')),
        )
        .map((r) => r.amount);
      const week = sumDecimals(before);
      if (compareDecimals(sumDecimals([week, t.amount]), limit) > 0)
        this.problems.push({
          row: 0,
          field: 'amount',
          message: `${code}: ${t.amount} in this file and ${week} in the last seven days pass the weekly limit of ${limit}`,
        });
    }
  }
}

type AddProblem = (field: string, message: string) => void;

/** A payment the API ended without money moving: it counts neither as a repeat nor towards a limit. */
const failedOrCancelled = (r: JournalRecord) => r.status === 'failed' || r.status === 'cancelled';

/** The row's own values, each as its flag would be checked: those required, and those given. */
function checkValues(v: BatchRow['values'], add: AddProblem): void {
  for (const [col, f] of [
    ['currency', fields.currency],
    ['amount', fields.amount],
    ['first_name', fields.firstName],
    ['email', fields.email],
  ] as const) {
    if (!v[col]) add(col, 'required');
    else {
      const why = problem(f, v[col]);
      if (why) add(col, why);
    }
  }
  if (v.last_name) {
    const why = problem(fields.lastName, v.last_name);
    if (why) add('last_name', why);
  }
  if (v.wallet && v.wallet !== 'true' && v.wallet !== 'false') add('wallet', 'true or false');
}

/**
 * What the run's journal says of a reference, in one look: whether it holds it here, or the place it
 * lives at when that is not this run's (from the journal's refusal).
 */
function lookUp(
  journal: JournalLike | undefined,
  reference: string,
): { here?: JournalRecord; elsewhere?: Place } {
  try {
    return { here: journal?.find(reference) };
  } catch (err) {
    if (!(err instanceof ElsewhereError)) throw err;
    return { elsewhere: err.place ?? { server: '?', merchant: '?', profile: '?', env: '?' } };
  }
}

/** The digits that name a phone whatever its spelling: the last nine (a national 0 or +233 are the same). */
const phoneDigits = (phone: string) => phone.replace(/\D/g, '').slice(-9);

/**
 * How the journal's record of a row's reference differs from the row, in words, or undefined when it is
 * the same payment. A record is compared on what it holds: one written before mpay recorded a field (a
 * customer's e-mail, say) is not refused for it.
 */
export function otherPayment(
  kind: PaymentKind,
  v: BatchRow['values'],
  rec: JournalRecord,
): string | undefined {
  const c = rec.customer ?? {};
  const same = (a: string | undefined, b: string | undefined) =>
    a === undefined || b === undefined || a.trim().toLowerCase() === b.trim().toLowerCase();
  const differs: string[] = [];
  if (rec.kind !== kind) differs.push(`a ${rec.kind}`);
  if (rec.amount !== undefined && v.amount && compareDecimals(rec.amount, v.amount) !== 0)
    differs.push(`amount ${rec.amount}`);
  if (!same(rec.currency, v.currency)) differs.push(`currency ${rec.currency}`);
  if (c.phone && v.phone && phoneDigits(c.phone) !== phoneDigits(v.phone)) differs.push(`phone ${c.phone}`);
  if (!same(c.email, v.email || undefined)) differs.push(`e-mail ${c.email}`);
  if (!same(c.first_name, v.first_name || undefined)) differs.push(`first name ${c.first_name}`);
  if (!same(c.last_name, v.last_name || undefined)) differs.push(`last name ${c.last_name}`);
  return differs.length ? differs.join(', ') : undefined;
}

/** A place as a row's problem names it. */
export const whereName = (p: Place) => `${p.server} (profile ${p.profile}, env ${p.env})`;
