// The one gate before money moves in the live environment. Every request that moves money (a flow's
// step, a single step, a batch's rows, a replay) passes it first; it asks once a run, on a terminal, or
// refuses without --yes. The gate is the run's (the Factory makes one), so a confirmation given anywhere
// in the run holds for every copy of a flow's dependencies.
import { CancelledError, UsageError } from '../api/errors.js';
import type { Prompter } from './prompter.js';

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

export class LiveGate {
  private passed = false;

  constructor(
    readonly env: string,
    private readonly run: {
      /** --yes: the person confirmed on the command line */
      yes?: boolean;
      /** absent when mpay must not ask (no terminal, --no-input, CI) */
      prompter?: Prompter;
    } = {},
  ) {}

  /** Resolves when `move` may be sent; throws (nothing sent) when it may not. A dry run sends nothing. */
  async pass(move: MoneyMove, dryRun = false): Promise<void> {
    if (dryRun || this.passed) return;
    const live = this.env === 'live';
    const { yes, prompter } = this.run;
    if (yes) {
      this.passed = true;
      return;
    }
    if (move.batch && prompter) {
      const ok = await prompter.confirm({
        message: `${move.batch.question}${live ? ' in the LIVE environment' : ''}?`,
        default: false,
      });
      if (!ok) throw new CancelledError('Cancelled; nothing was sent');
      this.passed = true;
      return;
    }
    if (!live) return;
    if (!prompter)
      throw new UsageError(
        `Nothing was sent: ${move.batch ? `${move.batch.rows} rows` : move.what} would move real money in the live environment: pass --yes to confirm`,
        move.batch ? {} : { hint: 'Or run it on a terminal to be asked' },
      );
    const ok = await prompter.confirm({
      message: `LIVE environment, real money: ${move.what}. Send it?`,
      default: false,
    });
    if (!ok) throw new CancelledError('Cancelled at the live confirmation; nothing was sent');
    this.passed = true;
  }
}
