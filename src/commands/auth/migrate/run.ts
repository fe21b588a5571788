// `mpay auth migrate`: moves a profile kept in the files into the OS keyring.
import type { Factory } from '../../../factory.js';
import { printResult } from '../../../ui/print.js';

export async function runAuthMigrate(opts: { json?: boolean; profile?: string }, f: Factory): Promise<void> {
  const { moveIntoKeyring } = await import('../../../flows/login/secret-storage.js');
  const store = await f.store();
  const name = opts.profile ?? f.environ.MPAY_PROFILE ?? store.currentProfile();
  const r = await moveIntoKeyring(store, name);
  await printResult(f.io, opts.json, r, () =>
    r.already
      ? `Profile ${name}'s secrets are already in the ${r.keyring}.`
      : `Moved profile ${name}'s merchant key, API key and ${r.tokens_moved} cached token${r.tokens_moved === 1 ? '' : 's'} into the ${r.keyring}; config.json and tokens.json no longer hold them.`,
  );
}
