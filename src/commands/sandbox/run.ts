// `mpay sandbox`: serves the whole API locally until Ctrl-C or SIGTERM.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import net from 'node:net';
import { LocalFileError, UsageError } from '../../api/errors.js';
import { isLoopback } from '../../api/base-url.js';
import { commandLine } from '../../api/shell-words.js';
import { requirePrivate, requireSafeFolderOf } from '../../api/private-path.js';
import type { Factory } from '../../factory.js';
import { printJson } from '../../ui/print.js';
import type { Fault } from '../../sandbox/faults.js';
import type { RunningSandbox } from '../../sandbox/server.js';
import type { DataStart } from '../../sandbox/state.js';
import type { Seed, SeedName } from '../../sandbox/seed.js';
import { portInUseHint } from '../shared/free-port.js';

export interface SandboxOptions {
  json?: boolean;
  /** the profile the printed login line logs in to: --profile, MPAY_PROFILE, else the current one */
  profile?: string;
  port: number;
  host: string;
  data?: string;
  seed: SeedName;
  faults?: Fault[];
  faultPaths?: string[];
  /** share of requests that get a fault, as given: "0.1" */
  faultRate: string;
  slowMs: number;
  faultSeed?: number;
  latencyMs?: number;
  /** as given: "200/s" */
  rateLimit?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** serve HTTPS with a self-signed certificate made for it (kept beside --data, else in a temp folder) */
  tls?: boolean;
  /** a trace or support bundle holding a merchant currencies answer: that merchant's data is served */
  catalogue?: string;
  /** a log line a request */
  logRequests?: boolean;
}

/**
 * The data file (with its write-ahead log beside it; an old format's snapshot, renamed at its import) is
 * read and written: a link planted there (in /tmp, by another user),
 * or a file another user owns or can write, would be read as the sandbox's state. Refused, exit 9, by the
 * rule of every file mpay keeps (api/private-path.ts); so is one in a folder every user can write that
 * has no sticky bit, where another user could replace it.
 */
function requirePrivateData(data: string, f: Factory): void {
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

export async function runSandbox(opts: SandboxOptions, f: Factory): Promise<void> {
  const rate = Number(opts.faultRate);
  if (!(rate >= 0 && rate <= 1))
    throw new UsageError(`--fault-rate must be between 0 and 1, not ${opts.faultRate}`);
  if (opts.data) requirePrivateData(opts.data, f);
  const { startSandbox } = await import('../../sandbox/server.js');
  const rateLimit = await rateLimitOf(opts);
  const catalogue = opts.catalogue ? await catalogueOf(opts.catalogue) : undefined;
  const stamp = () => f.now().toISOString().slice(11, 19);
  const log = (line: string) => f.io.note(`[sandbox ${stamp()}] ${line}`);
  const tls = await tlsOf(opts);
  // --tls without --data: the temporary folder, with its private key, goes at exit, however the run ends
  const removeTls = () => tls?.temporary && rmSync(tls.temporary, { recursive: true, force: true });
  const unregister = f.io.interrupts.atExit(removeTls);
  try {
    let sb: RunningSandbox;
    const settings = {
      port: opts.port,
      host: opts.host,
      dataFile: opts.data,
      seed: opts.seed,
      catalogue,
      faults: opts.faults,
      rate: opts.faults?.length ? rate : 0,
      faultPaths: opts.faultPaths,
      slowMs: opts.slowMs,
      faultSeed: opts.faultSeed,
      latencyMs: opts.latencyMs,
      rateLimit,
      tls: tls && { cert: tls.cert, key: tls.key },
      log,
      logRequests: opts.logRequests,
    };
    try {
      sb = await startSandbox(settings);
    } catch (err) {
      const { DataFileError } = await import('../../sandbox/store.js');
      if (err instanceof DataFileError)
        throw new LocalFileError(
          `The sandbox's data file cannot be read: ${err.message}. Nothing was written`,
          {
            hint: `Move it aside (mv ${commandLine([err.file])} ${commandLine([`${err.file}.aside`])}: the sandbox then starts empty), or give another --data file`,
          },
        );
      throw await listenError(err, opts);
    }
    if (tls) log(tls.trust);
    const reach = reachOf(opts.host, sb.url);
    warnOfReach(reach, opts.host, Boolean(tls), f);
    if (catalogue)
      log(
        `serving the catalogue of ${opts.catalogue}: ${catalogue.currencies.length} currencies, ${catalogue.gateways.length} gateways (secrets replaced by placeholders)`,
      );
    // the fault seed the sandbox drew when none was given
    await announce(sb.url, reach, { ...opts, faultSeed: settings.faultSeed }, sb.state.dataStart, tls, f);
    // Serves until Ctrl-C or SIGTERM (the IO's interruption), then closes the server; a second one ends
    // the run at once.
    await f.io.interrupts.untilInterrupted(async (reason) => {
      log(`${reason}: stopping`);
      await sb.close();
    });
  } finally {
    unregister();
    removeTls();
  }
}

interface Tls {
  cert: Buffer;
  key: Buffer;
  certFile: string;
  fingerprint: string;
  /** the lines that tell a client how to trust it */
  trust: string;
  /** the temporary folder it was made in (--tls without --data), removed at exit */
  temporary?: string;
}

/**
 * How a client trusts the certificate, in lines that read at 80 columns: the fingerprint (95 characters)
 * in two halves of 16 bytes, which joined are the whole (as openssl and browsers print it).
 */
function trustLines(certFile: string, fingerprint: string, made: boolean): string {
  const half = fingerprint.length >> 1;
  return [
    `TLS: ${made ? 'a self-signed certificate made for this sandbox' : 'the certificate of --tls-cert'}, ${certFile} (copy it to the client's machine)`,
    `  SHA-256 fingerprint, to compare there:`,
    `    ${fingerprint.slice(0, half + 1)}`,
    `    ${fingerprint.slice(half + 1)}`,
    `  a client trusts it with:`,
    `    NODE_EXTRA_CA_CERTS=${certFile} mpay …`,
  ].join('\n');
}

/**
 * The certificate to serve: --tls-cert and --tls-key, or with --tls a self-signed one, made once and kept
 * (beside --data, so that a client trusts it once; else in a new temporary folder, removed at exit). With
 * it, the lines that make mpay (or any Node client) on another machine trust it.
 */
async function tlsOf(opts: SandboxOptions): Promise<Tls | undefined> {
  const { fingerprintOf, selfSignedCertificate } = await import('../../sandbox/self-signed.js');
  const tlsFor = (certFile: string, cert: Buffer, key: Buffer, made: boolean, temporary?: string) => {
    const fingerprint = fingerprintOf(cert);
    return { cert, key, certFile, fingerprint, trust: trustLines(certFile, fingerprint, made), temporary };
  };
  if (opts.tlsCert && opts.tlsKey)
    return tlsFor(opts.tlsCert, readFileSync(opts.tlsCert), readFileSync(opts.tlsKey), false);
  if (!opts.tls) return undefined;
  const temporary = opts.data ? undefined : mkdtempSync(join(tmpdir(), 'mpay-sandbox-tls-'));
  const dir = temporary ?? dirname(resolve(opts.data!));
  const base = opts.data ? basename(opts.data) : 'sandbox';
  const certFile = join(dir, `${base}.tls-cert.pem`);
  const keyFile = join(dir, `${base}.tls-key.pem`);
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const names = [
      'localhost',
      '127.0.0.1',
      '::1',
      hostname(),
      ...Object.values(networkInterfaces()).flatMap((list) =>
        (list ?? []).map((a) => a.address.replace(/%.*$/, '')),
      ),
      // the address it listens on, unless that is every interface's (listed above)
      ...(reachOf(opts.host, '').everywhere ? [] : [opts.host.replace(/^\[|\]$/g, '')]),
    ];
    const made = selfSignedCertificate(names);
    writeFileSync(keyFile, made.key, { mode: 0o600, flag: 'wx' });
    writeFileSync(certFile, made.cert, { mode: 0o644, flag: 'wx' });
  }
  return tlsFor(certFile, readFileSync(certFile), readFileSync(keyFile), true, temporary);
}

/** --rate-limit, read: N/s or N/min. */
async function rateLimitOf(opts: SandboxOptions): Promise<{ limit: number; windowMs: number } | undefined> {
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
async function catalogueOf(file: string): Promise<Seed> {
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

/** Why the sandbox could not listen, as a person can act on it. */
async function listenError(err: unknown, opts: SandboxOptions): Promise<unknown> {
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

/**
 * Who can reach the sandbox, and the URL to use on this machine. Any address that is not loopback (0,
 * 0.0.0.0, ::, ::ffff:0.0.0.0, an interface's) is reachable from other machines; an unspecified one
 * listens on every interface, and is reached here on 127.0.0.1, since mpay refuses plain http to an
 * address that is not loopback.
 */
function reachOf(host: string, url: string): { loopback: boolean; everywhere: boolean; usable: string } {
  const bare = host.replace(/^\[|\]$/g, '');
  const loopback = isLoopback(bare) || bare === '::1';
  const everywhere =
    !loopback && (net.isIP(bare) === 0 ? bare === '0' : /^(0\.0\.0\.0|::|::ffff:0\.0\.0\.0|0+)$/.test(bare));
  const usable = everywhere ? url.replace(/\/\/(\[[^\]]*\]|[^/:]+):/, '//127.0.0.1:') : url;
  return { loopback, everywhere, usable };
}

/** Anyone who reaches a sandbox that is not on loopback can use the demo merchant's credentials. */
function warnOfReach(reach: ReturnType<typeof reachOf>, host: string, https: boolean, f: Factory): void {
  if (reach.everywhere)
    f.io.warn(
      `listening on every interface of this machine (${host}): anyone who can reach it can use the demo merchant's credentials; on this machine use ${reach.usable}`,
    );
  else if (!reach.loopback)
    f.io.warn(
      `listening on ${host}, which other machines can reach: anyone who can may use the demo merchant's credentials${https ? '' : '; and mpay refuses plain http to an address that is not loopback (serve with --tls or --tls-cert, or listen on 127.0.0.1)'}`,
    );
}

/** Every setting the sandbox runs with, as its banner lists them. */
function settingLines(opts: SandboxOptions, started: DataStart | undefined, tls: Tls | undefined): string[] {
  const faults = opts.faults?.length
    ? `${opts.faults.join(', ')} on ${Math.round(Number(opts.faultRate) * 100)}% of requests${opts.faultPaths?.length ? ` to paths containing ${opts.faultPaths.join(' or ')}` : ''} (a slow answer waits ${opts.slowMs} ms)`
    : 'none';
  return [
    'Settings:',
    `  latency:      ${opts.latencyMs ? `${opts.latencyMs} ms before each API request` : 'none'}`,
    `  rate limit:   ${opts.rateLimit ? `${opts.rateLimit.trim()}, then 429 with Retry-After` : 'none'}`,
    `  faults:       ${faults}`,
    `  fault seed:   ${opts.faultSeed ?? 'random'}`,
    `  data:         ${opts.catalogue ? `the catalogue of ${opts.catalogue}` : `the ${opts.seed} seed`}, ${opts.data ? `saved in ${opts.data}${dataStartOf(started)}` : 'in memory (lost at exit)'}`,
    `  TLS:          ${tls ? `on (https), ${opts.tls ? 'a self-signed certificate made for it,' : 'certificate'} ${tls.certFile}` : 'off (plain http)'}`,
    `  request log:  ${opts.logRequests ? 'on' : 'off (--log-requests: a line a request)'}`,
  ];
}

/** What the start found in --data: a new file, so an empty sandbox, or the transactions read back. */
const dataStartOf = (started: DataStart | undefined) =>
  !started
    ? ''
    : started.fresh
      ? ' (a new data file: the sandbox starts empty)'
      : ` (${started.transactions} transaction${started.transactions === 1 ? '' : 's'} read back)`;

/** The config's current profile, or undefined when there is no config to read (the sandbox needs none). */
async function currentProfile(f: Factory): Promise<string | undefined> {
  try {
    return (await f.store()).currentProfile();
  } catch {
    return undefined;
  }
}

/** Where the sandbox listens, with the demo merchant's credentials and the command that logs in to it. */
async function announce(
  url: string,
  { everywhere, usable }: ReturnType<typeof reachOf>,
  opts: SandboxOptions,
  started: DataStart | undefined,
  tls: Tls | undefined,
  f: Factory,
): Promise<void> {
  const { demoMerchant } = await import('../../sandbox/seed.js');
  // the login line names the profile unless it is the default one, so that it logs in the one meant
  // wherever it is pasted (a shell with another MPAY_PROFILE, a config whose current profile changed)
  const profile = opts.profile ?? (await currentProfile(f));
  const profileArgs = profile && profile !== 'default' ? ` --profile ${commandLine([profile])}` : '';
  const info = {
    url: usable,
    base_url: usable,
    documentation: `${url}/restapi/documentation`,
    merchant_key: demoMerchant.merchantKey,
    site_id: demoMerchant.siteId,
    api_key: demoMerchant.apiKey,
    otp: demoMerchant.otp,
    settings: {
      latency_ms: opts.latencyMs ?? 0,
      rate_limit: opts.rateLimit ?? null,
      faults: opts.faults ?? [],
      fault_rate: opts.faults?.length ? Number(opts.faultRate) : 0,
      fault_paths: opts.faultPaths ?? [],
      fault_seed: opts.faultSeed ?? null,
      seed: opts.catalogue ? null : opts.seed,
      catalogue: opts.catalogue ?? null,
      data_file: opts.data ?? null,
      // a new data file (none, or 0 bytes): the sandbox starts empty
      data_file_new: started ? started.fresh : null,
      tls: Boolean(tls),
      tls_certificate: tls?.certFile ?? null,
      tls_fingerprint: tls?.fingerprint ?? null,
      log_requests: Boolean(opts.logRequests),
    },
  };
  if (opts.json) return printJson(f.io, info, 0);
  // Prose and a command line for a person, folded by the IO to a terminal's width (the command only with
  // ` \`, so that it still pastes), in one write: a reader of the first line has them all.
  f.io.out(
    [
      f.io.fold(
        [
          `mpay sandbox listening on ${everywhere ? `${url} (every interface)` : url}`,
          `  API docs:     ${info.documentation}`,
          `  merchant key: ${demoMerchant.merchantKey}`,
          `  site id:      ${demoMerchant.siteId}`,
          `  API key:      ${demoMerchant.apiKey}`,
          `  one-time code for withdrawals: ${demoMerchant.otp}`,
          ...settingLines(opts, started, tls),
          '',
        ].join('\n'),
        'stdout',
      ),
      // No secret on mpay's command line (process lists show it): the key on stdin, the API key in the
      // environment.
      f.io.fold(
        {
          label: 'Try: ',
          command: `printf %s ${demoMerchant.merchantKey} | ${tls ? `NODE_EXTRA_CA_CERTS=${tls.certFile} ` : ''}MPAY_API_KEY=${demoMerchant.apiKey} mpay login${profileArgs} --env sandbox --base-url ${usable} --site-id ${demoMerchant.siteId} --merchant-key-stdin`,
        },
        'stdout',
      ),
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
}
