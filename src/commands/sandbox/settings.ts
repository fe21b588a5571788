// What `mpay sandbox` reads from its flags before it starts: the data file's privacy, --rate-limit,
// --catalogue; and why it could not start, told in the flags' words.
import { LocalFileError, UsageError } from '../../common/errors.js';
import { commandLine } from '../../common/shell-words.js';
import { requirePrivate, requireSafeFolderOf } from '../../common/private-path.js';
import type { Factory } from '../../factory.js';
import type { Seed } from '../../sandbox/seed.js';
import { portInUseHint } from '../shared/free-port.js';
import type { SandboxOptions } from './run.js';

/**
 * The data file (with its write-ahead log beside it; an old format's snapshot, renamed at its import) is
 * read and written: a link planted there (in /tmp, by another user),
 * or a file another user owns or can write, would be read as the sandbox's state. Refused, exit 9, by the
 * rule of every file mpay keeps (common/private-path.ts); so is one in a folder every user can write that
 * has no sticky bit, where another user could replace it.
 */
export function requirePrivateData(data: string, f: Factory): void {
  requireSafeFolderOf(data, 'sandbox data');
  for (const [path, label] of [
    [data, 'sandbox data'],
    [`${data}.snapshot`, 'sandbox snapshot'],
    [`${data}-wal`, 'sandbox write-ahead log'],
  ] as const) {
    const warning = requirePrivate(path, 'file', label);
    if (warning) f.io.warn(warning);
  }
}

/** --rate-limit, read: N/s or N/min. */
export async function rateLimitOf(
  opts: SandboxOptions,
): Promise<{ limit: number; windowMs: number } | undefined> {
  if (opts.rateLimit === undefined) return undefined;
  const { parseRateLimit } = await import('../../sandbox/pacing.js');
  const rateLimit = parseRateLimit(opts.rateLimit);
  if (!rateLimit)
    throw new UsageError(
      `--rate-limit takes N/s or N/min (N at least 1, the unit required), not "${opts.rateLimit}"`,
      {
        hint: /^\s*\d+\s*$/.test(opts.rateLimit)
          ? `A second or a minute? --rate-limit ${opts.rateLimit.trim()}/s or --rate-limit ${opts.rateLimit.trim()}/min`
          : 'For example --rate-limit 200/s',
      },
    );
  return rateLimit;
}

/** --catalogue: the merchant's data set, from the merchant currencies answer of a trace or bundle. */
export async function catalogueOf(file: string): Promise<Seed> {
  const { readTraceFile } = await import('../shared/trace-file.js');
  const { merchantCurrenciesOf } = await import('../../api/har-read.js');
  const { catalogueSeed } = await import('../../sandbox/catalogue.js');
  const data = merchantCurrenciesOf(await readTraceFile(file));
  if (!data)
    throw new UsageError(`${file} holds no merchant currencies answer`, {
      hint: 'Trace `mpay balances --trace run.har` against the merchant, and give that file (or its bundle)',
    });
  return catalogueSeed(data, file);
}

/** Why the sandbox could not start (its data file unread, or it could not listen), as a person can act on it. */
export async function startError(err: unknown, opts: SandboxOptions): Promise<unknown> {
  const { DataFileError } = await import('../../sandbox/tx-store.js');
  if (err instanceof DataFileError)
    return new LocalFileError(`The sandbox's data file cannot be read: ${err.message}. Nothing was written`, {
      hint: `Move it aside (mv ${commandLine([err.file])} ${commandLine([`${err.file}.aside`])}: the sandbox then starts empty), or give another --data file`,
    });
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new UsageError(`Port ${opts.port} on ${opts.host} is already in use`, {
      hint: await portInUseHint(opts.host, opts.port, 'Stop what listens there, or pick another port: '),
    });
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
    return new UsageError(`Cannot listen on ${opts.host}:${opts.port} (${code})`, {
      hint: 'Ports below 1024 need privileges; the host must be an address of this machine',
    });
  return err;
}
