import { readFileSync } from 'node:fs';
import * as Flags from '@oclif/core/flags';
import { BaseCommand } from '../cli/base-command.js';
import { UsageError } from '../api/errors.js';
import { faultKinds, isFault } from '../sandbox/faults.js';

export default class Sandbox extends BaseCommand<typeof Sandbox> {
  static override summary = 'Serve the whole Merchant Payments API locally, with a demo merchant';
  static override description = `A faithful local implementation of the API for trying mpay, reproducing issues and testing scripts with no network and no account. State lives in memory unless --data names a file. The demo merchant's one-time code for withdrawals is 123456, also written to this log as if e-mailed.

Faults can be injected per request with the header X-Mpay-Sandbox-Fault: 500|html|malformed|empty|shape|slow|drop|drop-after|401|escapes (X-Mpay-Sandbox-Delay: ms for slow), or for a share of all requests with --fault and --fault-rate.`;
  static override examples = [
    '<%= config.bin %> sandbox',
    '<%= config.bin %> sandbox --port 0 --data ./sandbox-state.json',
    '<%= config.bin %> sandbox --fault 500 --fault html --fault-rate 0.2',
    '<%= config.bin %> sandbox --seed alt   # gateways spelled another way, to test rules against',
  ];
  static override flags = {
    port: Flags.integer({
      description: 'port to listen on (0 for any free port)',
      default: 4010,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({ description: 'address to listen on', default: '127.0.0.1' }),
    data: Flags.string({ description: 'file that keeps the state across restarts (written atomically)' }),
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
    'tls-cert': Flags.string({
      description: 'serve HTTPS with this PEM certificate',
      dependsOn: ['tls-key'],
    }),
    'tls-key': Flags.string({ description: 'PEM private key of --tls-cert', dependsOn: ['tls-cert'] }),
  };

  async run(): Promise<void> {
    const rate = Number(this.flags['fault-rate']);
    if (!(rate >= 0 && rate <= 1))
      throw new UsageError(`--fault-rate must be between 0 and 1, not ${this.flags['fault-rate']}`);
    const { startSandbox } = await import('../sandbox/server.js');
    const { demoMerchant } = await import('../sandbox/seed.js');
    const tls =
      this.flags['tls-cert'] && this.flags['tls-key']
        ? { cert: readFileSync(this.flags['tls-cert']), key: readFileSync(this.flags['tls-key']) }
        : undefined;
    const stamp = () => new Date().toISOString().slice(11, 19);
    const sb = await startSandbox({
      port: this.flags.port,
      host: this.flags.host,
      dataFile: this.flags.data,
      seed: this.flags.seed as 'demo' | 'alt',
      faults: this.flags.fault?.filter(isFault),
      rate: this.flags.fault ? rate : 0,
      faultPaths: this.flags['fault-path'],
      slowMs: this.flags['slow-ms'],
      tls,
      log: (line) => process.stderr.write(`[sandbox ${stamp()}] ${line}\n`),
    });
    const info = {
      url: sb.url,
      base_url: sb.url,
      documentation: `${sb.url}/restapi/documentation`,
      merchant_key: demoMerchant.merchantKey,
      site_id: demoMerchant.siteId,
      api_key: demoMerchant.apiKey,
      otp: demoMerchant.otp,
    };
    if (this.jsonMode) process.stdout.write(`${JSON.stringify(info)}\n`);
    else {
      process.stdout.write(
        [
          `mpay sandbox listening on ${sb.url}`,
          `  API docs:     ${info.documentation}`,
          `  merchant key: ${demoMerchant.merchantKey}`,
          `  site id:      ${demoMerchant.siteId}`,
          `  API key:      ${demoMerchant.apiKey}`,
          `  one-time code for withdrawals: ${demoMerchant.otp}`,
          '',
          `Try: mpay login --env sandbox --base-url ${sb.url} --merchant-key ${demoMerchant.merchantKey} --site-id ${demoMerchant.siteId} --api-key ${demoMerchant.apiKey}`,
          'Ctrl-C stops it.',
          '',
        ].join('\n'),
      );
    }
    await new Promise<void>((resolve) => {
      const stop = async (signal: string) => {
        process.stderr.write(`[sandbox ${stamp()}] ${signal}: stopping\n`);
        await sb.close();
        resolve();
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
    });
  }
}
