// `mpay sandbox`: serves the whole API locally until Ctrl-C or SIGTERM.
// Its flags read (settings.ts), the certificate (sandbox/tls.ts), then the banner (banner.ts).
import { rmSync } from 'node:fs';
import { UsageError } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import type { Fault } from '../../sandbox/faults.js';
import { reachOf } from '../../sandbox/reach.js';
import type { RunningSandbox } from '../../sandbox/server.js';
import type { SeedName } from '../../sandbox/seed.js';
import { announce, warnOfReach } from './banner.js';
import { catalogueOf, rateLimitOf, requirePrivateData, startError } from './settings.js';

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
  const { tlsOf } = await import('../../sandbox/tls.js');
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
      throw await startError(err, opts);
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
