// What every mpay command shares: the global flags of design.md, the run context (config, client,
// prompter), and the one place where errors become a message, a JSON object and an exit code.
import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import type * as Interfaces from '@oclif/core/interfaces';
import { CancelledError, MpayError, UsageError, toMpayError } from '../api/errors.js';
import type { Client, PreparedRequest } from '../api/client.js';
import type { Context } from '../config/context.js';
import type { FlowDeps } from '../flows/types.js';
import { clean } from '../ui/output.js';
import { Factory } from '../factory.js';
import { systemIO, type IO } from '../io.js';

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>;
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;

/** On every command that sends a POST. */
export const dryRunFlag = {
  'dry-run': Flags.boolean({
    description: 'print the request (redacted, and as curl) instead of sending it',
  }),
};

export const outputFlags = {
  csv: Flags.boolean({ description: 'print CSV on stdout', exclusive: ['json'] }),
  columns: Flags.string({ description: 'comma-separated columns to show (table and CSV)' }),
  filter: Flags.string({
    description: 'keep rows where KEY=VALUE (repeatable; case-insensitive)',
    multiple: true,
  }),
};

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override baseFlags = {
    profile: Flags.string({ description: 'stored profile to use', env: 'MPAY_PROFILE', helpGroup: 'GLOBAL' }),
    env: Flags.string({
      description: 'environment',
      options: ['sandbox', 'stage', 'live'],
      env: 'MPAY_ENV',
      helpGroup: 'GLOBAL',
    }),
    'base-url': Flags.string({
      description: "override the environment's base URL (the part before /restapi/v1)",
      env: 'MPAY_BASE_URL',
      helpGroup: 'GLOBAL',
    }),
    json: Flags.boolean({ description: 'print exactly one JSON document on stdout', helpGroup: 'GLOBAL' }),
    debug: Flags.boolean({
      description: 'print every HTTP request and response on stderr, secrets redacted',
      env: 'MPAY_DEBUG',
      helpGroup: 'GLOBAL',
    }),
    'no-input': Flags.boolean({
      description: 'never prompt; a missing value is an error (default without a terminal, or with CI=true)',
      helpGroup: 'GLOBAL',
    }),
    yes: Flags.boolean({ char: 'y', description: 'skip confirmations', helpGroup: 'GLOBAL' }),
    timeout: Flags.string({
      description: 'seconds one request may take',
      env: 'MPAY_TIMEOUT',
      helpGroup: 'GLOBAL',
    }),
  };

  protected flags!: BaseFlags<T>;
  protected args!: BaseArgs<T>;
  /** the one IO object of this process */
  protected readonly io: IO = systemIO();
  private _factory?: Factory;

  public override async init(): Promise<void> {
    await super.init();
    const { args, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      args: this.ctor.args,
      strict: this.ctor.strict,
    });
    this.flags = flags as BaseFlags<T>;
    this.args = args as BaseArgs<T>;
  }

  /** Everything a command depends on comes from here (src/factory.ts). */
  protected get factory(): Factory {
    this._factory ??= new Factory(
      this.io,
      {
        profile: this.flags.profile,
        env: this.flags.env,
        baseUrl: this.flags['base-url'],
        // The flag carries MPAY_TIMEOUT too (oclif reads it); resolveContext checks the value.
        timeout: this.flags.timeout,
        debug: this.flags.debug,
        noInput: this.flags['no-input'],
        yes: this.flags.yes,
      },
      `mpay-cli/${this.config.version} node/${process.version}`,
    );
    return this._factory;
  }

  /** True when mpay may ask questions: a terminal on stdin, and neither --no-input nor CI=true. */
  protected get interactive(): boolean {
    return this.io.canPrompt(this.flags['no-input']);
  }

  protected get jsonMode(): boolean {
    return Boolean(this.flags.json);
  }

  /** A line for a person, on stderr so stdout stays for results. */
  protected note(line: string): void {
    this.io.note(line);
  }

  protected loadContext(): Promise<Context> {
    return this.factory.context();
  }

  protected client(opts: { dryRun?: boolean } = {}): Promise<Client> {
    return this.factory.client(opts);
  }

  /** What a flow needs: client, journal, prompter (on a terminal only), reporter. */
  protected flowDeps(opts: { dryRun?: boolean; force?: boolean; command: string }): Promise<FlowDeps> {
    return this.factory.flowDeps(opts);
  }

  /** Prints one result: the JSON document with --json, else what `human` renders. */
  protected async emit(data: unknown, human: () => Promise<string> | string): Promise<void> {
    if (this.jsonMode) {
      this.io.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      return;
    }
    const text = await human();
    if (text) this.io.stdout.write(`${text}\n`);
  }

  /** --dry-run output: the request, redacted, and the same as a curl command line. */
  protected async emitDryRun(req: PreparedRequest): Promise<void> {
    const { dryRunView } = await import('../ui/dry-run.js');
    const view = dryRunView(req);
    await this.emit(
      { dry_run: true, request: view.request, curl: view.curl },
      () => `${view.text}\n\n${view.curl}`,
    );
  }

  protected override async catch(err: Error & { oclif?: { exit?: number }; code?: string }): Promise<void> {
    // Checks go by marker and name properties, never by class name: the bundle renames classes.
    if ((err as { isDryRun?: boolean }).isDryRun) {
      await this.emitDryRun((err as unknown as { request: PreparedRequest }).request);
      return;
    }
    // this.exit() and --help/--version travel as errors too: let oclif have them.
    if (err.oclif?.exit === 0 || err.code === 'EEXIT') throw err;
    let e: MpayError;
    if (err instanceof MpayError) e = err;
    // Ctrl-C at a prompt: nothing more is sent; what was sent is in the journal.
    else if (err.name === 'ExitPromptError') {
      this.io.stderr.write('\n');
      e = new CancelledError('cancelled; nothing more was sent');
    }
    // oclif's parse errors (unknown flag, missing argument, bad option) carry exit code 2.
    else if (err.oclif?.exit === 2) {
      e = new UsageError(err.message.split('\n')[0] ?? 'Invalid usage', {
        hint: `See \`mpay ${this.id?.replace(/:/g, ' ') ?? ''} --help\``,
      });
    } else e = toMpayError(err);
    if (this.flags?.json || process.argv.includes('--json'))
      this.io.stdout.write(`${JSON.stringify(e.toJSON(), null, 2)}\n`);
    this.io.stderr.write(`mpay: ${clean(e.message)}\n`);
    if (!this.flags?.json)
      for (const [field, msgs] of Object.entries(e.fields))
        this.io.stderr.write(`  ${clean(field)}: ${clean(msgs.join(' '))}\n`);
    if (e.hint && !this.flags?.json) this.io.stderr.write(`hint: ${clean(e.hint)}\n`);
    if (e.kind === 'unexpected' && (this.flags?.debug || process.env.MPAY_DEBUG === '1'))
      this.io.stderr.write(`${(e.cause as Error)?.stack ?? e.stack}\n`);
    process.exitCode = e.exitCode;
  }
}
