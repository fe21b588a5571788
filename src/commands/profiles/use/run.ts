// `mpay profiles use NAME`: the profile used when none is named.
import { UsageError } from '../../../common/errors.js';
import type { Factory } from '../../../factory.js';
import { printResult } from '../../../ui/print.js';

export async function runProfilesUse(opts: { json?: boolean; name: string }, f: Factory): Promise<void> {
  const store = await f.store();
  if (!store.profile(opts.name)) {
    throw new UsageError(`No profile named "${opts.name}"`, {
      hint: `Known: ${Object.keys(store.profiles()).join(', ') || 'none; run `mpay login`'}`,
    });
  }
  await store.setCurrentProfile(opts.name);
  await printResult(f.io, opts.json, { current: opts.name }, () => `Now using profile ${opts.name}.`);
}
