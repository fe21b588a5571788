// The one gate before money moves. The sender (api/sender.ts) sends no request that moves money without a
// ticket, and only this gate makes tickets (the Factory hands it the run's tickets' `issue`, and the client
// only their `verify`): so every way of building a request (a flow, a single step, a batch, replay,
// `mpay api`, doctor, anything later) comes here. A ticket means, in every environment:
//   - on a live server (config/live.ts decides, by the server, not the environment's name), the person
//     confirmed: once a run, on a terminal, or by --yes;
//   - the transaction's lock is held by this process and was not taken over (journal/locks.ts);
//   - the journal's 'sent' line of the step is written and synced.
// The gate is the run's (the Factory makes one), so a confirmation given anywhere in the run holds for
// every copy of a flow's dependencies.
import { randomBytes } from 'node:crypto';
import {
  CancelledError,
  ConfirmationRequiredError,
  LocalFileError,
  UsageError,
} from '../../common/errors.js';
import type { PaymentKind } from '../../api/enums.js';
import type { MoneyStep } from '../../api/money.js';
import { runTickets, type Issue, type Ticket } from '../../api/ticket.js';
import type { ServerVerdict } from '../../config/live.js';
import type { JournalLike } from '../../journal/journal.js';
import type { JournalEvent, Kind, Place, Step } from '../../journal/records.js';
import type { Prompter } from '../prompter.js';

/** What is about to be sent, as the question and the refusal name it. */
export interface MoneyMove {
  /** "this deposit of 20 GHS", "Initiating the deposit (ref-1)" */
  what: string;
  /**
   * A batch: its question ("Send these 12 deposits") is asked on a terminal in every environment, and
   * `rows` is how many it sends.
   */
  batch?: { question: string; rows: number };
}

/** A step about to be sent: its journal line (written before the ticket is issued). */
export type Stepping = Omit<JournalEvent, 'at' | 'place' | 'outcome'>;

/** An open ticket: the request may go; `close` when it has its answer (or none). */
export interface OpenTicket {
  ticket: Ticket;
  /** the ticket was issued for a live server (the person confirmed) */
  live: boolean;
  close(): Promise<void>;
}

/** The credentials probe's open ticket: its journal reference, and its outcome line to write. */
export interface ProbeTicket extends OpenTicket {
  reference: string;
  record(
    outcome: 'ok' | 'failed' | 'ambiguous',
    data: { hash_token?: string } & Record<string, unknown>,
  ): void;
}

export interface GateRun {
  /** --yes: the person confirmed on the command line */
  yes?: boolean;
  /** absent when mpay must not ask (no terminal, --no-input, CI) */
  prompter?: Prompter;
  /** the run's tickets' issue (api/ticket.ts): the Factory hands it to the gate alone */
  issue?: Issue;
  /** an mpay proxy in front of a live server said so in an answer (the client heard it) */
  upstreamLive?: () => boolean;
  /**
   * Held from a step's 'sent' line until its answer is journaled (the function returned lets go): what
   * would end the run meanwhile (a reader of stdout gone) lets the step finish. The Factory hands the IO's.
   */
  hold?: () => () => void;
}

/** The lock of one transaction (journal/locks.ts): held around each of its money steps. */
export async function holdTransaction(
  reference: string,
  kind: Kind,
  place: Place | undefined,
  journal: Pick<JournalLike, 'hold'>,
) {
  try {
    return await journal.hold(
      ['transaction', place?.server ?? '', place?.merchant ?? '', reference],
      `the ${kind === 'deposit' ? 'deposit' : 'withdrawal'} ${reference}`,
    );
  } catch (err) {
    throw nothingSent(err);
  }
}

/** A local failure before a money request left: its message says so, once. */
export function nothingSent(err: unknown): unknown {
  if (err instanceof LocalFileError && !err.message.startsWith('Nothing was sent'))
    err.message = `Nothing was sent: ${err.message}`;
  return err;
}

const moneyStepOf = (s: Step): MoneyStep => (s === 'otp' ? 'processed' : (s as MoneyStep));

export class MoneyGate {
  private passed = false;
  private readonly issue: Issue;
  readonly server: ServerVerdict;

  constructor(
    /** the server's verdict (config/live.ts); a bare environment name in tests of the question alone */
    server: ServerVerdict | string,
    private readonly run: GateRun = {},
  ) {
    this.server =
      typeof server === 'string'
        ? { server: 'this server', live: server === 'live', why: `the ${server} environment` }
        : server;
    this.issue = run.issue ?? runTickets().issue;
  }

  /** Whether money sent through this gate goes to a live server. */
  get live(): boolean {
    return this.server.live || Boolean(this.run.upstreamLive?.());
  }

  private get where(): string {
    return this.server.live || !this.run.upstreamLive?.()
      ? `the live server ${this.server.server}`
      : `the live server behind the mpay proxy at ${this.server.server}`;
  }

  /** Resolves when `move` may be sent; throws (nothing sent) when it may not. A dry run sends nothing. */
  async pass(move: MoneyMove, dryRun = false): Promise<void> {
    if (dryRun || this.passed) return;
    const live = this.live;
    const { yes, prompter } = this.run;
    // --yes holds for the whole run: nothing to remember
    if (yes) return;
    if (move.batch && prompter) {
      const ok = await prompter.confirm({
        message: `${move.batch.question}${live ? ` on ${this.where} (LIVE, real money)` : ''}?`,
        default: false,
      });
      if (!ok) throw new CancelledError('Cancelled; nothing was sent');
      this.passed = true;
      return;
    }
    if (!live) return;
    // Its own kind and exit code (16): a script tells "confirm it" from a bad flag or row, and the hint
    // never offers to call the server something else.
    if (!prompter)
      throw new ConfirmationRequiredError(
        `Nothing was sent: ${move.what} would move real money on ${this.where} (${this.server.why}): pass --yes to confirm`,
        {
          hint: 'Pass --yes once you have checked the server and the amount, or run it on a terminal to be asked',
        },
      );
    const ok = await prompter.confirm({
      message: `LIVE server ${this.server.server}, real money: ${move.what}. Send it?`,
      default: false,
    });
    if (!ok) throw new CancelledError('Cancelled at the live confirmation; nothing was sent');
    this.passed = true;
  }

  /**
   * A request printed for later instead of sent (a dry run's curl, `history show --curl`): outside the
   * gate, so for a live server it is printed only with --yes, and says so (`liveHeader`).
   */
  printable(what: string): void {
    if (!this.live || this.run.yes) return;
    throw new UsageError(
      `Not printed: ${what} would be a command that moves real money on ${this.where}, outside mpay's journal and its confirmation`,
      { hint: 'Pass --yes to print it anyway' },
    );
  }

  /** The line a printed command for a live server starts with, else undefined. */
  get liveHeader(): string | undefined {
    return this.live
      ? `# LIVE: this moves REAL money on ${this.where}; mpay does not journal or confirm it`
      : undefined;
  }

  /**
   * Opens the way for one money step: the live question (once a run), the transaction's lock, the
   * journal's synced 'sent' line, then the ticket. Nothing is written when it refuses.
   */
  async open(
    journal: JournalLike,
    place: Place | undefined,
    at: Stepping,
    label: string,
    /** what the body carries, when not the step's own reference or hash token (`mpay api`) */
    carries: { value: string | undefined } = {
      value: at.step === 'initiate' ? at.reference : at.hash_token,
    },
  ): Promise<OpenTicket> {
    await this.pass({ what: `${label} (${at.reference})` });
    const lock = await holdTransaction(at.reference, at.kind, place, journal);
    try {
      lock.check();
      journal.append({ ...at, outcome: 'sent' });
    } catch (err) {
      await lock();
      throw err;
    }
    const release = this.run.hold?.();
    const initiate = at.step === 'initiate';
    const { ticket, revoke } = this.issue({
      step: moneyStepOf(at.step),
      kind: at.kind,
      carries: { field: initiate ? 'customer_transaction_id' : 'hash_token', value: carries.value },
      live: this.live,
      check: lock.check,
    });
    return {
      ticket,
      live: this.live,
      close: async () => {
        revoke();
        release?.();
        await lock();
      },
    };
  }

  /**
   * The credentials probe of doctor and login: a withdraw initiate that carries no customer and no
   * reference, which the API refuses (api/credentials-probe.ts). It never goes to a live server unless the
   * caller was asked to send it there (`explicit`), and then passes the live question like any money step.
   * It is journaled as a probe, under a reference of its own, before it is sent: `record` writes its
   * outcome (a probe a server took and created a withdrawal from stays in the journal as one).
   */
  async probe(explicit: boolean, journal: JournalLike): Promise<ProbeTicket | undefined> {
    if (this.live && !explicit) return undefined;
    // on a server that is not live, a move that is no batch passes without a question
    await this.pass({ what: 'the API-key check (a withdraw initiate of the credentials alone)' });
    const at = {
      reference: `probe-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`,
      kind: 'withdraw' satisfies PaymentKind,
      step: 'initiate',
    } as const;
    try {
      journal.append({ ...at, outcome: 'sent', data: { probe: true } });
    } catch (err) {
      throw nothingSent(err);
    }
    const { ticket, revoke } = this.issue({
      step: 'initiate',
      kind: at.kind,
      carries: { field: 'customer_transaction_id', value: undefined },
      live: this.live,
      check: () => {},
    });
    return {
      ticket,
      live: this.live,
      reference: at.reference,
      close: async () => revoke(),
      record: (outcome, data) => {
        try {
          journal.append({ ...at, outcome, hash_token: data.hash_token, data: { probe: true, ...data } });
        } catch {
          // The probe's answer is reported all the same; its record stays as sent with no answer.
        }
      },
    };
  }
}
