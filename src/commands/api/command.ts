import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { BaseCommand, flagSets, type HelpGroup } from '../base/base-command.js';

export default class Api extends BaseCommand<typeof Api> {
  static override baseFlags = flagSets.raw;
  static helpGroup: HelpGroup = { section: 'SUPPORT', order: 1 };
  static override summary = 'Call any endpoint, authenticated; its answer as sent';
  static override description = `PATH is relative to /restapi/v1 (a full path, or a URL on the profile's server, works too). The bearer token is added (and renewed once on a 401) except for the public lists and token generate. POST bodies go as form-data for token generate, status update and wallet update, and as JSON elsewhere, unless --encoding says otherwise. The answer is printed as the server sent it (indented on a terminal); with --json, as every command's, stdout holds exactly one JSON document: the answer's, or the error document of a failure. The exit code follows its status (3 for 401/403, 4 for 422, 5 for 404, 6 for 412, 7 for 5xx). A POST is never retried.`;
  static override examples = [
    '<%= config.bin %> api GET /merchant/currencies',
    '<%= config.bin %> api POST /payments/status/update -f hash_token=3f9a…c2 -f status=initiated -F gateway_id=2',
    '<%= config.bin %> api POST /payments/initiate --credentials --input body.json --include',
    '<%= config.bin %> api GET /merchant/currencies --json --query "data[].code"',
    '<%= config.bin %> api POST /payments/status/update --encoding json -f hash_token=3f9a…c2 -f status=initiated',
    '<%= config.bin %> api POST /payments/withdraw/initiate --credentials -f currency_code=GHS --dry-run',
  ];
  static override args = {
    method: Args.string({ description: 'GET or POST', required: true }),
    path: Args.string({ description: 'the endpoint, e.g. /merchant/currencies', required: true }),
  };
  static override flags = {
    field: Flags.string({
      char: 'F',
      description: 'typed field key=value: numbers, true, false, null, @file',
      multiple: true,
    }),
    'raw-field': Flags.string({ char: 'f', description: 'string field key=value', multiple: true }),
    input: Flags.string({ description: 'the whole body from a file of JSON (- for stdin)' }),
    encoding: Flags.string({
      description: 'the body as json or as multipart/form-data (by default: as the endpoint takes it)',
      options: ['json', 'form'],
    }),
    form: Flags.boolean({ description: 'the same as --encoding form', exclusive: ['encoding'] }),
    credentials: Flags.boolean({ description: 'add merchant_key, site_id and api_key from the profile' }),
    header: Flags.string({ char: 'H', description: "extra header 'name: value'", multiple: true }),
    include: Flags.boolean({
      char: 'i',
      description: 'print the status line and the headers before the body',
      exclusive: ['json'],
    }),
    'dry-run': Flags.boolean({ description: 'print the request (and as curl) instead of sending it' }),
    'max-size': Flags.integer({
      description: 'read an answer of up to this many MB (8 by default)',
      min: 1,
      max: 4096,
    }),
  };

  async run(): Promise<void> {
    const { runApi } = await import('./run.js');
    const f = this.flags;
    await this.execute(runApi, {
      method: this.args.method,
      path: this.args.path,
      typed: f.field,
      raw: f['raw-field'],
      input: f.input,
      encoding: f.form ? 'form' : (f.encoding as 'json' | 'form' | undefined),
      json: f.json,
      credentials: f.credentials,
      header: f.header,
      include: f.include,
      dryRun: f['dry-run'],
      maxSizeMb: f['max-size'],
    });
  }
}
