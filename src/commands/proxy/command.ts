import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Proxy extends BaseCommand<typeof Proxy> {
  static override baseFlags = flagSets.standalone;
  static helpGroup: HelpGroup = { section: 'SUPPORT', order: 4 };
  static override summary = 'Forward to a server; report where it departs from the spec';
  static override description = `A local HTTP server that forwards every request to --upstream (http on loopback, or https; through HTTPS_PROXY and with NODE_EXTRA_CA_CERTS as mpay's own requests) and checks each answer of the API against the OpenAPI document the sandbox publishes: a status the document does not list for that path, a body that fails its schema (types, required fields, nulls), and fields the document does not name.

An upstream that is a live server (a profile keeps it as live, or no profile keeps it as a sandbox or stage) needs --live; the proxy then tells mpay so in every answer, and refuses a money request that mpay did not confirm (428).

Each departure is one NDJSON record (time, method, path, status, kind, field, message) in --report FILE, and one line on stderr on a terminal (without --report and a terminal: the record on stderr). No secret reaches a record. Point mpay, or the merchant's own integration, at the proxy's URL.`;
  static override examples = [
    '<%= config.bin %> proxy --upstream https://stage.example.com --report gaps.ndjson',
    '<%= config.bin %> deposit --base-url http://127.0.0.1:4020 …   # in another terminal',
    '<%= config.bin %> proxy --upstream http://127.0.0.1:4010 --port 0 --json',
  ];
  static override flags = {
    upstream: Flags.string({
      description: 'the server to forward to: its base URL, the part before /restapi/v1',
      required: true,
    }),
    port: Flags.integer({
      description: 'port to listen on (0 for any free port)',
      default: 4020,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({ description: 'address to listen on', default: '127.0.0.1' }),
    report: Flags.string({ description: 'write each departure to FILE as a JSON line (NDJSON)' }),
    timeout: Flags.string({ description: 'seconds one upstream request may take', env: 'MPAY_TIMEOUT' }),
    live: Flags.boolean({
      description:
        'the upstream is a live server: proxy it anyway (mpay then asks before each money request through the proxy)',
    }),
  };

  async run(): Promise<void> {
    const { runProxy } = await import('./run.js');
    const f = this.flags;
    await this.execute(runProxy, {
      upstream: f.upstream,
      port: f.port,
      host: f.host,
      report: f.report,
      json: f.json,
      timeout: f.timeout,
      live: f.live,
    });
  }
}
