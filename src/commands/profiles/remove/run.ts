// `mpay profiles remove NAME`: a profile, its secrets and its tokens.
import { exitCodes, UsageError } from '../../../api/errors.js';
import type { Factory } from '../../../factory.js';
import { printResult } from '../../../ui/print.js';

export async function runProfilesRemove(opts: { json?: boolean; name: string }, f: Factory): Promise<void> {
  const store = await f.store();
  if (!store.profile(opts.name)) throw new UsageError(`No profile named "${opts.name}"`);
  const prompter = f.globals.yes ? undefined : await f.prompter();
  if (prompter) {
    const ok = await prompter.confirm({
      message: `Remove profile ${opts.name} and its credentials?`,
      default: false,
    });
    if (!ok) {
      f.io.note('Kept.');
      return;
    }
  }
  const { leftover } = await store.removeProfile(opts.name);
  await printResult(f.io, opts.json, { removed: opts.name }, () => `Removed profile ${opts.name}.`);
  if (leftover) {
    f.io.warn(leftover);
    f.io.exitCode = exitCodes.local;
  }
}
