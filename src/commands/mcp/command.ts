import * as Flags from '@oclif/core/flags';
import { BaseCommand, globalFlags, type HelpGroup } from '../base/base-command.js';

export default class Mcp extends BaseCommand<typeof Mcp> {
  static helpGroup: HelpGroup = { section: 'SUPPORT', order: 6 };
  static override baseFlags = {
    profile: globalFlags.profile,
    env: globalFlags.env,
    'base-url': globalFlags['base-url'],
    debug: globalFlags.debug,
    timeout: globalFlags.timeout,
    trace: globalFlags.trace,
    yes: Flags.boolean({
      char: 'y',
      description: "no effect here: a live money call is sent only on the person's answer through the client",
      helpGroup: 'GLOBAL',
    }),
  };
  static override summary = 'Serve mpay to AI assistants: an MCP server on stdio';
  static override description = `Offers mpay's reads (countries, currencies, balances, history, one transaction, doctor) and money calls (deposit and withdraw as whole flows and as single steps, status update, wallet address update) as MCP tools, for an assistant's MCP client to start as a subprocess. stdout carries JSON-RPC only; logs go to stderr (--debug adds every HTTP request, secrets redacted).

Every money tool is journaled before it is sent (\`mpay history\` marks them "via mpay mcp") and holds its transaction's lock. On a live server (decided by the server, as for every command) the person is asked through the client (MCP elicitation), and only an accept sends; a client that cannot ask gets the error confirmation_required, and --yes changes nothing. A withdrawal's one-time code is asked the same way, or given as the otp argument; it is never logged or returned.

Name the profile (--profile): without it the current profile, the one the last \`mpay login\` stored, is used, wherever it points. A client passes mpay few environment variables (HOME, PATH…): MPAY_CONFIG_DIR or MPAY_KEYRING go in its settings' "env". stderr's first line names the config folder, profile, environment and server (LIVE when it is).

End of input, Ctrl-C or SIGTERM ends the server as a payment command's first Ctrl-C does: the request in flight finishes and is journaled, no step starts after it, and stderr names each transaction in flight and how to continue it; a call cut off is answered with what was sent and the tool that continues it, and a call that comes after is refused (cancelled, nothing sent). See docs/mcp.md for the settings an assistant needs (the command the client starts must be on its PATH: npm link, or node and the absolute path of bin/run.js).`;
  static override flags = {
    'read-only': Flags.boolean({
      description: 'offer the read tools alone (doctor without its API-key check): nothing can move money',
    }),
  };
  static override examples = [
    '<%= config.bin %> mcp --profile sandbox --env sandbox',
    '<%= config.bin %> mcp --read-only --profile acme --env live',
    '<%= config.bin %> mcp --profile sandbox --env sandbox --base-url http://127.0.0.1:4010',
  ];

  async run(): Promise<void> {
    const { runMcp } = await import('./run.js');
    await this.execute(runMcp, { readOnly: this.flags['read-only'], version: this.config.version });
  }
}
