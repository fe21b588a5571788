// `mpay profiles remove NAME`: a profile, its secrets and its tokens.
import { exitCodes, UsageError } from '../../../common/errors.js';
import type { Factory } from '../../../factory.js';
import { printResult } from '../../../ui/print.js';

export async function runProfilesRemove(opts: { json?: boolean; name: string }, f: Factory): Promise<void> {
  const store = await f.store();
  if (!store.profile(opts.name)) throw new UsageError(`No profile named "${opts.name}"`);
  const prompter = f.globals.yes ? undefined : await f.prompter();
  // Removing takes the secrets with it: without --yes it is asked, and with no terminal to ask on it is
  // refused, never done unasked.
  if (!f.globals.yes && !prompter)
    throw new UsageError(`Not removed: removing profile ${opts.name} takes its credentials with it`, {
      hint: `Pass --yes to remove it without a terminal: \`mpay profiles remove ${opts.name} --yes\``,
    });
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
