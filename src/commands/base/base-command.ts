// The oclif side every mpay command shares: the global flags, the one IO object and the
// Factory made from them, and the catch that hands any failure to ui/report-error.ts (the one place
// errors become output and an exit code). A command class holds flags, help and a run() of a line or two
// that calls its run function (the run.ts beside it) through execute(), with an Options object.
import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import type * as Interfaces from '@oclif/core/interfaces';
import { Factory } from '../../factory.js';
import { systemIO, type IO } from '../../io/io.js';
import { reportError } from '../../ui/report-error.js';
import { tellOutputFailures } from '../../ui/output-failures.js';
import { nearest } from '../../common/nearest.js';

// Typed from every global flag: a command that does not take one sees it as undefined.
export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<typeof globalFlags & T['flags']>;
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;

export const globalFlags = {
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
  query: Flags.string({
    description: 'JMESPath filter of the --json output (implies --json), e.g. "[].code"',
    helpGroup: 'GLOBAL',
  }),
  trace: Flags.string({
    description:
      "write every request and response of the run to FILE as HAR 1.2, secrets redacted (added to a trace of mpay's there; any other file is refused)",
    env: 'MPAY_TRACE',
    helpGroup: 'GLOBAL',
  }),
};

/**
 * What a command runs with: its IO, its environment variables, and the function that runs its Options (its
 * run function, unless a test asks only for the Options: gh's runF). The entry gives the process's own;
 * a test gives its own to one command object (test/in-process.ts), so no global is swapped.
 */
export interface Host {
  io: IO;
  environ: NodeJS.ProcessEnv;
  /** instead of the run function: receives the Options the flags became, and runs nothing */
  runF?: (options: unknown) => Promise<void> | void;
  /** a step of `mpay run`: the run's Factory, whose store, context, gate and secrets the step shares */
  run?: Factory;
}

/** oclif's truthy values for a boolean flag's variable (MPAY_DEBUG=1) */
const truthy = (v: string) => ['true', '1', 'yes', 'y'].includes(v.toLowerCase());

/**
 * The flag table with each flag's variable (`env: 'MPAY_PROFILE'`) read from the run's environment rather
 * than process.env, which oclif's parser reads: a flag left off the command line defaults to its
 * variable's value, as oclif would give it.
 */
function withEnviron<F extends Record<string, { env?: string; type?: string; default?: unknown }>>(
  flags: F | undefined,
  environ: NodeJS.ProcessEnv,
): F | undefined {
  if (!flags) return flags;
  const out: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(flags)) {
    if (!flag.env) {
      out[name] = flag;
      continue;
    }
    const value = environ[flag.env];
    const { env: _env, ...rest } = flag;
    out[name] =
      value === undefined || value === ''
        ? rest
        : { ...rest, default: flag.type === 'boolean' ? truthy(value) : value };
  }
  return out as F;
}

const pick = <K extends keyof typeof globalFlags>(...keys: K[]) =>
  Object.fromEntries(keys.map((k) => [k, globalFlags[k]])) as Pick<typeof globalFlags, K>;

/**
 * The global flags each kind of command takes, so that its help lists only the ones that mean something
 * for it. Commands that move money take them all (the default).
 */
export const flagSets = {
  /** read from the API */
  api: pick('profile', 'env', 'base-url', 'json', 'query', 'debug', 'timeout', 'trace'),
  /** read from the API, and may send a money request through the gate (doctor's probe): --yes */
  probe: pick('profile', 'env', 'base-url', 'json', 'query', 'debug', 'timeout', 'trace', 'yes', 'no-input'),
  /** log in: the API, and prompts */
  login: pick('profile', 'env', 'base-url', 'json', 'query', 'debug', 'timeout', 'trace', 'no-input'),
  /** the profile in effect, without a request */
  context: pick('profile', 'env', 'base-url', 'json', 'query'),
  /** mpay's own files: the journal, the settings */
  local: pick('profile', 'env', 'json', 'query'),
  /** asks before it removes */
  confirm: pick('json', 'query', 'yes', 'no-input'),
  /** `mpay api`: the API, its answer printed as sent, or with --json as one JSON document */
  raw: pick('profile', 'env', 'base-url', 'json', 'query', 'debug', 'timeout', 'trace', 'yes', 'no-input'),
  /** neither a profile nor the API: the sandbox, the demo */
  standalone: pick('json', 'query'),
};

/** The sections of the root help (`mpay --help`), in the order it shows them. */
export const helpSections = ['GETTING STARTED', 'PAYMENTS', 'READING', 'SUPPORT', 'SET-UP'] as const;

/**
 * Where a command stands in the root help: its section, and its place there. A command declares it as
 * `static helpGroup`; oclif's manifest keeps it, and the help reads it from there (help.ts), so that a new
 * command is listed without editing the help. A topic without a command of its own (auth, config) stands
 * where its first command does.
 */
export interface HelpGroup {
  section: (typeof helpSections)[number];
  order: number;
}

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override baseFlags: Partial<typeof globalFlags> = globalFlags;

  protected flags!: BaseFlags<T>;
  protected args!: BaseArgs<T>;
  /** every argument given, in order (a command with `strict = false` takes any number: `mpay run A B`) */
  protected argvGiven: string[] = [];
  private hostGiven?: Host;

  /** A test's host for this one command object, before it runs. */
  withHost(h: Host): this {
    this.hostGiven = h;
    return this;
  }

  private get host(): Host {
    this.hostGiven ??= { io: systemIO(), environ: process.env };
    return this.hostGiven;
  }

  /** the run's IO object */
  protected get io(): IO {
    return this.host.io;
  }
  private _factory?: Factory;

  public override async init(): Promise<void> {
    await super.init();
    const environ = this.host.environ;
    const { args, flags, argv } = await this.parse({
      flags: withEnviron(this.ctor.flags, environ),
      baseFlags: withEnviron((super.ctor as typeof BaseCommand).baseFlags, environ),
      args: this.ctor.args,
      strict: this.ctor.strict,
    });
    this.flags = flags as BaseFlags<T>;
    this.args = args as BaseArgs<T>;
    this.argvGiven = argv as string[];
    // A trace that could not be written is refused now, before the profile is read or anything sent.
    const trace = this.flags.trace; // or MPAY_TRACE, its variable
    if (trace) {
      const { checkOutputFolder } = await import('../../common/out-file.js');
      checkOutputFolder(trace, 'the trace');
    }
    if (this.flags.query !== undefined) {
      // Checked before anything is sent; it implies --json.
      const { checkQuery } = await import('../../ui/query.js');
      checkQuery(this.flags.query);
      this.io.query = this.flags.query;
      (this.flags as { json?: boolean }).json = true;
    }
  }

  /**
   * Runs the command's run function with the Options its flags became and the Factory; a test's host may
   * take the Options instead (runF), to check how flags become Options without running anything.
   */
  protected async execute<O>(run: (options: O, f: Factory) => Promise<void>, options: O): Promise<void> {
    if (this.host.runF) return void (await this.host.runF(options));
    try {
      await run(options, this.factory);
    } finally {
      // An output that failed after requests left: said, and exit 15 (a step of `mpay run` leaves it to the run).
      if (!this.host.run) tellOutputFailures(this.io, this.factory.outputs);
    }
  }

  /** Everything a command depends on comes from here (src/factory.ts). */
  protected get factory(): Factory {
    if (this.host.run) this._factory ??= this.host.run.forIO(this.io);
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
        trace: this.flags.trace,
      },
      `mpay-cli/${this.config.version} node/${process.version}`,
      this.host.environ,
    );
    return this._factory;
  }

  /**
   * The nearest to what a parse error says was mistyped: a flag of this command (`--amont`), or one of its
   * subcommands given where an argument goes (`mpay withdraw batch confrm x.csv`).
   */
  private suggestion(message: string): string | undefined {
    const flag = /Nonexistent flags?: (--[\w-]+)/.exec(message)?.[1];
    if (flag) {
      const names = Object.keys({ ...(this.ctor.baseFlags ?? {}), ...(this.ctor.flags ?? {}) });
      const near = nearest(flag.slice(2), names);
      return near.length ? near.map((n) => `--${n}`).join(' or ') : undefined;
    }
    if (/Unexpected argument/.test(message)) {
      const word = this.argv.find((a) => !a.startsWith('-'));
      const prefix = `${this.id}:`;
      const subs = this.config.commands
        .filter((c) => c.id.startsWith(prefix))
        .map((c) => c.id.slice(prefix.length));
      const near = word ? nearest(word, subs) : [];
      return near.length
        ? near.map((n) => `\`mpay ${this.id!.replace(/:/g, ' ')} ${n}\``).join(' or ')
        : undefined;
    }
    return undefined;
  }

  protected override async catch(err: Error & { oclif?: { exit?: number }; code?: string }): Promise<void> {
    // this.exit() and --help/--version travel as errors too: let oclif have them.
    if (err.oclif?.exit === 0 || err.code === 'EEXIT') throw err;
    // A parse error is reported here as a usage error: the arguments were read, and refused. Without this,
    // oclif warns (with NODE_ENV development or test) that the command "did not parse its arguments".
    (this as unknown as { parsed: boolean }).parsed = true;
    this.io.exitCode = await reportError(this.io, err, {
      // Parse errors come before flags exist: --json is then read from the command line itself.
      json: 'json' in (this.ctor.baseFlags ?? {}) && (this.flags?.json ?? this.argv.includes('--json')),
      debug: Boolean(this.flags?.debug) || this.host.environ.MPAY_DEBUG === '1',
      command: this.id?.replace(/:/g, ' '),
      suggestion: err.oclif?.exit === 2 ? this.suggestion(err.message) : undefined,
      secrets: this._factory?.secrets,
      moneySent: this._factory?.moneySent(),
    });
  }
}
