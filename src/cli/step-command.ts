// The one-step commands: deposit/withdraw initiate and process, status, wallet. They share the context
// set-up and the lookup of what the journal knows of a hash token.
import type { Command } from '@oclif/core';
import { UsageError } from '../api/errors.js';
import { BaseCommand } from './base-command.js';
import { flowDeps } from './flow.js';
import type { FlowDeps } from '../flows/payment.js';
import type { JournalRecord, Kind } from '../journal/journal.js';

export abstract class StepCommand<T extends typeof Command> extends BaseCommand<T> {
  protected async deps(dryRun: boolean, command: string): Promise<FlowDeps> {
    const ctx = await this.loadContext();
    const client = await this.client({ dryRun });
    return flowDeps(ctx, client, this.interactive ? await this.prompter() : undefined, {
      yes: this.flags.yes,
      force: (this.flags as { force?: boolean }).force,
      command,
    });
  }

  /**
   * The journal's record of a hash token (or reference). A transaction mpay did not start gets a bare
   * record, and its steps go unrecorded: the journal holds what mpay started.
   */
  protected async record(
    deps: FlowDeps,
    key: string,
    kind?: Kind,
  ): Promise<{ record: JournalRecord; known: boolean }> {
    const { checked, fields } = await import('../flows/inputs.js');
    const found = deps.journal.find(key);
    if (found) {
      if (kind && found.kind !== kind) throw new UsageError(`${key} is a ${found.kind}, not a ${kind}`);
      return { record: found, known: true };
    }
    const hash = checked(fields.hashToken, key);
    const { NullJournal } = await import('../journal/journal.js');
    deps.journal = new NullJournal();
    const now = new Date().toISOString();
    return {
      record: {
        reference: hash,
        kind: kind ?? 'deposit',
        hash_token: hash,
        created_at: now,
        updated_at: now,
        steps: [],
      },
      known: false,
    };
  }
}
