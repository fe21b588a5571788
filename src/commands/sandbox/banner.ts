// What `mpay sandbox` prints once it listens: who can reach it, and its banner (where it listens, the demo
// merchant's credentials, every setting, the command that logs in to it), or the same as JSON.
import { commandLine } from '../../common/shell-words.js';
import type { Factory } from '../../factory.js';
import { printJson } from '../../ui/print.js';
import type { Reach } from '../../sandbox/reach.js';
import type { DataStart } from '../../sandbox/state.js';
import type { Tls } from '../../sandbox/tls.js';
import type { SandboxOptions } from './run.js';

/** Anyone who reaches a sandbox that is not on loopback can use the demo merchant's credentials. */
export function warnOfReach(reach: Reach, host: string, https: boolean, f: Factory): void {
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
export function settingLines(
  opts: SandboxOptions,
  started: DataStart | undefined,
  tls: Tls | undefined,
): string[] {
  // how long a slow answer waits: said only when `slow` is one of the faults (no other fault waits)
  const faults = opts.faults?.length
    ? `${opts.faults.join(', ')} on ${Math.round(Number(opts.faultRate) * 100)}% of requests${opts.faultPaths?.length ? ` to paths containing ${opts.faultPaths.join(' or ')}` : ''}${opts.faults.includes('slow') ? ` (a slow answer waits ${opts.slowMs} ms)` : ''}`
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
export async function announce(
  url: string,
  { everywhere, usable }: Reach,
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
