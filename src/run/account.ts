// `mpay token`, `mpay whoami` and `mpay docs`: what the profile in effect is, and what it holds.
import { spawn } from 'node:child_process';
import { fingerprint, mask } from '../api/redact.js';
import type { Factory } from '../factory.js';
import { renderRecord } from '../ui/output.js';
import { shellWord } from '../ui/curl.js';
import { fitWidth, printResult } from '../ui/print.js';

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

export async function runWhoami(opts: { json?: boolean }, f: Factory): Promise<void> {
  const ctx = await f.context();
  const fp = (s?: string) => (s ? fingerprint(s) : null);
  const keyFp = fp(ctx.credentials.merchantKey);
  // Each cached token belongs to the key that made it; only the one of the key in effect is used.
  const cached = ctx.store
    .cachedTokens({ profile: ctx.profileName, env: ctx.env, baseUrl: ctx.baseUrl })
    .map((t) => ({
      merchant_key_fingerprint: t.keyFingerprint,
      created_at: t.createdAt,
      used: t.keyFingerprint === keyFp,
    }));
  const data = {
    profile: ctx.profileName,
    env: ctx.env,
    base_url: ctx.baseUrl,
    merchant_key_fingerprint: keyFp,
    merchant_key_from: ctx.credentialSources.merchantKey,
    site_id: ctx.credentials.siteId ?? null,
    api_key_fingerprint: fp(ctx.credentials.apiKey),
    cached_token: Boolean(ctx.tokens.get()),
    cached_tokens: cached,
    config_dir: ctx.store.dir,
  };
  await printResult(f.io, opts.json, data, () =>
    renderRecord(
      {
        ...data,
        cached_token: data.cached_token
          ? `yes, made with merchant key ${keyFp}`
          : 'none for this merchant key',
        // Every token the JSON lists: the one in use, and those of other keys.
        cached_tokens:
          cached
            .map(
              (t) =>
                `${t.merchant_key_fingerprint} (${t.used ? 'this key' : 'another key'}, made ${t.created_at.slice(0, 19).replace('T', ' ')})`,
            )
            .join(', ') || 'none',
      },
      fitWidth(f.io),
    ),
  );
}

export interface DocsOptions {
  json?: boolean;
  /** open a browser: true, false, or undefined for "on a desktop terminal" */
  open?: boolean;
}

export async function runDocs(opts: DocsOptions, f: Factory): Promise<void> {
  const ctx = await f.context();
  const url = `${ctx.baseUrl}/restapi/documentation`;
  await printResult(f.io, opts.json, { url, openapi: `${url}/openapi.json` }, () => url);
  const desktop =
    process.platform === 'darwin' ||
    process.platform === 'win32' ||
    Boolean(f.environ.DISPLAY || f.environ.WAYLAND_DISPLAY);
  if (opts.open ?? (desktop && f.io.stdoutIsTTY && !opts.json)) {
    const opener =
      process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => f.io.note(`Could not run ${opener}; open the URL above by hand.`));
    child.unref();
  }
}
