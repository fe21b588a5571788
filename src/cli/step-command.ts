// The one-step commands: deposit/withdraw initiate and process, status, wallet. They share the context
// set-up and the lookup of what the journal knows of a hash token.
import type { Command } from '@oclif/core/command';
import { UsageError } from '../api/errors.js';
import { BaseCommand } from './base-command.js';
import type { FlowDeps } from '../flows/types.js';
import type { JournalRecord, Kind } from '../journal/journal.js';

export abstract class StepCommand<T extends typeof Command> extends BaseCommand<T> {
  /** --gateway, else the gateway the journal recorded, else a usage error. */
  protected async gatewayFor(record: JournalRecord, flag: string | undefined): Promise<number> {
    const { checked, fields } = await import('../flows/inputs.js');
    const gateway = flag ?? (record.gateway_id === undefined ? undefined : String(record.gateway_id));
    if (!gateway) {
      throw new UsageError('Missing --gateway', {
        fields: { gateway_id: ['required'] },
        hint: 'The journal has no gateway for this transaction',
      });
    }
    return Number(checked(fields.gateway, gateway));
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
