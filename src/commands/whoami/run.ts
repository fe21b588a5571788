// `mpay whoami`: the profile in effect, where its key comes from, and its cached tokens.
import { fingerprint } from '../../api/redact.js';
import { keyringHint } from '../../api/credentials.js';
import { exitCodes } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import { renderRecord } from '../../ui/output.js';
import { fitWidth, printResult } from '../../ui/print.js';

export async function runWhoami(opts: { json?: boolean }, f: Factory): Promise<void> {
  const ctx = await f.context();
  const fp = (s?: string) => (s ? fingerprint(s) : null);
  const keyFp = fp(ctx.credentials.merchantKey);
  // The key kept in a keyring mpay cannot use now is not read: its tokens are neither "this key" nor
  // "another key".
  const unreadable = ctx.credentials.unreadable;
  // Each cached token belongs to the key that made it; only the one of the key in effect is used.
  const cached = ctx.store.tokens
    .cachedTokens({ profile: ctx.profileName, env: ctx.env, baseUrl: ctx.baseUrl })
    .map((t) => ({
      merchant_key_fingerprint: t.keyFingerprint,
      created_at: t.createdAt,
      used: unreadable && !keyFp ? null : t.keyFingerprint === keyFp,
    }));
  const data = {
    profile: ctx.profileName,
    env: ctx.env,
    base_url: ctx.baseUrl,
    merchant_key_fingerprint: keyFp,
    merchant_key_from:
      unreadable && ctx.credentialSources.merchantKey === 'none'
        ? 'keyring'
        : ctx.credentialSources.merchantKey,
    problem: unreadable ?? null,
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
                `${t.merchant_key_fingerprint} (${t.used === null ? 'the key was not read' : t.used ? 'this key' : 'another key'}, made ${t.created_at.slice(0, 19).replace('T', ' ')})`,
            )
            .join(', ') || 'none',
      },
      fitWidth(f.io),
    ),
  );
  if (unreadable) {
    f.io.warn(`${unreadable}. ${keyringHint}`);
    f.io.exitCode = exitCodes.local;
  }
}
