import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';
import { faultKinds, isFault } from '../../sandbox/faults.js';
import type { SeedName } from '../../sandbox/seed.js';

export default class Sandbox extends BaseCommand<typeof Sandbox> {
  // --profile (or MPAY_PROFILE): the profile the printed `mpay login` line logs in to the sandbox
  static override baseFlags = { ...flagSets.standalone, profile: flagSets.api.profile };
  static helpGroup: HelpGroup = { section: 'SET-UP', order: 12 };
  static override summary = 'Serve the whole API locally, with a demo merchant';
  static override description = `A faithful local implementation of the API for trying mpay, reproducing issues and testing scripts with no network and no account. State lives in memory unless --data names a file. The demo merchant's one-time code for withdrawals is 123456, also written to this log as if e-mailed.

Faults can be injected per request with the header X-Mpay-Sandbox-Fault: 500|html|malformed|empty|shape|slow|drop|drop-after|401|escapes (X-Mpay-Sandbox-Delay: ms for slow), or for a share of all requests with --fault and --fault-rate (drawn from a seed it logs; --fault-seed draws the same again).

A slow, rate-limited API on demand: --latency delays every API request, and --rate-limit N/s answers beyond N requests a second with 429 and Retry-After, as a real API's limiter would.`;
  static override examples = [
    '<%= config.bin %> sandbox',
    '<%= config.bin %> sandbox --port 0 --data ./sandbox.db',
    '<%= config.bin %> sandbox --fault 500 --fault html --fault-rate 0.2',
    '<%= config.bin %> sandbox --seed alt   # gateways spelled another way, to test rules against',
    '<%= config.bin %> sandbox --latency 100 --rate-limit 200/s',
    '<%= config.bin %> sandbox --fault drop --fault-rate 0.1 --fault-seed 42',
    '<%= config.bin %> sandbox --catalogue ticket-4711.tar.gz   # their data',
    '<%= config.bin %> sandbox --host 0.0.0.0 --tls --data ./sandbox.db   # https, for other machines',
  ];
  static override flags = {
    port: Flags.integer({
      description: 'port to listen on (0 for any free port)',
      default: 4010,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({ description: 'address to listen on', default: '127.0.0.1' }),
    data: Flags.string({
      description:
        'SQLite database that keeps the state across restarts (an older data file is imported, and kept beside it)',
    }),
    seed: Flags.string({
      description:
        'data set: demo, or alt (the same kinds of gateway with other ids, names and field spellings)',
      options: ['demo', 'alt'],
      default: 'demo',
    }),
    fault: Flags.string({
      description: 'fault to inject into a share of requests (repeatable)',
      multiple: true,
      options: [...faultKinds],
    }),
    'fault-path': Flags.string({
      description: 'apply --fault only to paths containing this text (repeatable)',
      multiple: true,
    }),
    'fault-rate': Flags.string({ description: 'share of requests that get a fault, 0 to 1', default: '0.1' }),
    'slow-ms': Flags.integer({ description: 'how long a slow answer waits', default: 3000 }),
    'fault-seed': Flags.integer({
      description: 'seed of the --fault-rate draws, to draw the same faults again (default: random, logged)',
      min: 0,
    }),
    latency: Flags.integer({ description: 'every API request waits this many ms first', default: 0, min: 0 }),
    'rate-limit': Flags.string({
      description: 'at most N API requests a second or a minute (N/s or N/min); beyond, 429 with Retry-After',
    }),
    'log-requests': Flags.boolean({ description: 'log a line a request: method, path, status and time' }),
    'tls-cert': Flags.string({
      description: 'serve HTTPS with this PEM certificate',
      dependsOn: ['tls-key'],
    }),
    'tls-key': Flags.string({ description: 'PEM private key of --tls-cert', dependsOn: ['tls-cert'] }),
    tls: Flags.boolean({
      description:
        'serve HTTPS with a self-signed certificate made for it (kept beside --data, else removed at exit); prints its fingerprint and how a client trusts it',
      exclusive: ['tls-cert'],
    }),
    catalogue: Flags.string({
      description:
        "a trace or support bundle with a merchant currencies answer: serve that merchant's data (instead of --seed)",
    }),
  };

  async run(): Promise<void> {
    const { runSandbox } = await import('./run.js');
    const f = this.flags;
    await this.execute(runSandbox, {
      json: f.json,
      profile: f.profile,
      port: f.port,
      host: f.host,
      data: f.data,
      seed: f.seed as SeedName,
      faults: f.fault?.filter(isFault),
      faultPaths: f['fault-path'],
      faultRate: f['fault-rate'],
      slowMs: f['slow-ms'],
      faultSeed: f['fault-seed'],
      latencyMs: f.latency,
      rateLimit: f['rate-limit'],
      logRequests: f['log-requests'],
      tlsCert: f['tls-cert'],
      tlsKey: f['tls-key'],
      tls: f.tls,
      catalogue: f.catalogue,
    });
  }
}
