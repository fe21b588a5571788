// `mpay token`: a bearer token for the profile in effect, cached, masked unless asked.
import { mask } from '../../api/redact.js';
import type { Factory } from '../../factory.js';
import { shellWord } from '../../ui/curl.js';
import { printResult } from '../../ui/print.js';

export interface TokenOptions {
  json?: boolean;
  dryRun?: boolean;
  /** print the whole token */
  show?: boolean;
  /** print `export MPAY_TOKEN=…` for eval, as the curl mpay prints expects it */
  export?: boolean;
}

export async function runToken(opts: TokenOptions, f: Factory): Promise<void> {
  const ctx = await f.context();
  const client = await f.client({ dryRun: opts.dryRun });
  const token = await client.generateToken();
  const data = {
    token,
    profile: ctx.profileName,
    env: ctx.env,
    base_url: ctx.baseUrl,
    created_at: f.now().toISOString(),
  };
  if (opts.export && !opts.json) return f.io.out(`export MPAY_TOKEN=${shellWord(token)}`);
  await printResult(f.io, opts.json, data, () =>
    opts.show
      ? token
      : `Token ${mask(token)} cached for profile ${ctx.profileName} (${ctx.env}, ${ctx.baseUrl}). Use --show to print it.`,
  );
}
