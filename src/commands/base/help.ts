// mpay's help, on oclif's: the root help groups the commands by what a person comes to do (as gh's
// does), with examples and where to learn more; a command's USAGE names its arguments and required flags
// and leaves the rest to the FLAGS sections. A mistyped command is answered with the nearest ones.
import type { Command } from '@oclif/core/command';
import type { Config } from '@oclif/core/config';
import { CommandHelp, Help } from '@oclif/core/help';
import type { Hook } from '@oclif/core/hooks';
import { stripVTControlCharacters } from 'node:util';
import { foldCommand } from '../../io/fold.js';
import { systemIO } from '../../io/io.js';
import { nearest } from '../../common/nearest.js';
import { commandLine } from '../../common/shell-words.js';
import { UsageError } from '../../common/errors.js';
import { globalFlags, helpSections, type HelpGroup } from './base-command.js';

/**
 * The root help's sections: every command's first word under the section its class declares
 * (`static helpGroup`, read from the manifest), in its order there. A command that declares none (a
 * plugin's, such as autocomplete) is listed last under SET-UP: every command is listed, whoever wrote it.
 */
export function rootGroups(commands: readonly Command.Loadable[]): Array<[string, string[]]> {
  const place = new Map<string, { section: string; order: number }>();
  for (const c of commands) {
    const name = c.id.split(':')[0]!;
    if (c.hidden || !name) continue;
    const declared = (c as { helpGroup?: HelpGroup }).helpGroup;
    const here = declared ?? { section: 'SET-UP', order: Number.MAX_SAFE_INTEGER };
    const known = place.get(name);
    // a topic's own command (history) decides its place; else its first-placed subcommand does
    if (!known || (c.id === name && declared) || (here.section === known.section && here.order < known.order))
      place.set(name, here);
  }
  return helpSections.map((section) => [
    section,
    [...place]
      .filter(([, p]) => p.section === section)
      .sort(([a, x], [b, y]) => x.order - y.order || (a < b ? -1 : 1))
      .map(([name]) => name),
  ]);
}

const examples = [
  ['mpay demo', 'a deposit and a withdraw against a sandbox in this process'],
  ['mpay login', 'store and check your merchant credentials'],
  ['mpay deposit', 'a guided deposit; every value can also be a flag'],
  ['mpay balances --json | jq ".[].code"', 'your currencies, for a script'],
  ['mpay history --since 1d', 'what mpay sent today, and where each stands'],
];

class MpayCommandHelp extends CommandHelp {
  /**
   * Examples that fit the terminal: one too wide is folded with shell continuations, its comment on a
   * line of its own above it, so that every line fits and the command still pastes as it is.
   */
  protected override examples(examples: Command.Example[] | undefined | string): string | undefined {
    const list = typeof examples === 'string' ? [examples] : (examples ?? []);
    if (list.length === 0) return undefined;
    // EXAMPLES is indented by two: what a line may hold.
    const width = (this.opts.maxWidth ?? 80) - 2;
    return list
      .map((e) => {
        if (typeof e !== 'string') return super.examples([e]) ?? '';
        const m = /^(.*?)\s{2,}#\s(.*)$/.exec(e);
        // oclif's own formatting of an example line ($ before mpay's commands), private in its types.
        const format = (this as unknown as { formatIfCommand(x: string): string }).formatIfCommand.bind(this);
        const command = format(m ? m[1]! : e);
        const whole = m ? `${command}   # ${m[2]}` : command;
        if (stripVTControlCharacters(whole).length <= width) return whole;
        return [...(m ? [`# ${m[2]}`] : []), ...foldCommand(command, width)].join('\n');
      })
      .join('\n');
  }

  /** The GLOBAL FLAGS section ends with where they may be written. */
  override section(header: string, body: Parameters<CommandHelp['section']>[1]): string {
    const text = super.section(header, body);
    if (header !== 'GLOBAL FLAGS') return text;
    const id = this.command.id.replace(/:/g, ' ');
    // a global flag the command takes (`mpay mcp` has no --json)
    const flag = this.command.flags?.json ? '--json' : '--debug';
    const note = `These may also come before the command: \`mpay ${flag} ${id}\``;
    return `${text}\n\n${this.indent(this.wrap(note, 2))}`;
  }

  /**
   * An argument's choices as words that fold at their spaces (`setting, one of: env, timeout, …`): oclif
   * writes them `(env|timeout|…)`, one word that an 80-column terminal cuts inside a key.
   */
  protected override args(args: Parameters<CommandHelp['args']>[0]): ReturnType<CommandHelp['args']> {
    return super.args(
      args.map((a) =>
        a.options
          ? {
              ...a,
              options: undefined,
              description: `${a.description ?? ''}, one of: ${a.options.join(', ')}`,
            }
          : a,
      ),
    );
  }

  /** A flag's choices the same way: oclif's `<options: a|b|…>` spaced (`a | b | …`), so that it folds at 80. */
  protected override flags(flags: Parameters<CommandHelp['flags']>[0]): ReturnType<CommandHelp['flags']> {
    return super
      .flags(flags)
      ?.map(([left, right]) => [
        left,
        right?.replace(
          /<options: ([^>]*)>/,
          (_m, list: string) => `<options: ${list.split('|').join(' | ')}>`,
        ),
      ]);
  }

  /** `mpay status HASH_TOKEN --status <value> [flags]`: the arguments and required flags only. */
  protected override defaultUsage(): string {
    const args = Object.values(this.command.args ?? {})
      .filter((a) => !a.hidden)
      .map((a) => (a.required ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`));
    const required = Object.entries(this.command.flags ?? {})
      .filter(([, f]) => f.required && !f.hidden)
      .map(([name, f]) => (f.type === 'boolean' ? `--${name}` : `--${name} <value>`));
    return [this.command.id, ...args, ...required, '[flags]'].join(' ');
  }
}

export class MpayHelp extends Help {
  constructor(config: Config, opts: ConstructorParameters<typeof Help>[1] = {}) {
    super(config, opts);
    this.CommandHelpClass = MpayCommandHelp;
  }

  /**
   * A command's summary at the top of its help, folded to the terminal's width (oclif leaves it whole).
   * In a list of commands (a topic's COMMANDS) it stays whole: the list folds it in its own column, and
   * a summary folded here first came out broken mid-line there ("(a proxy's, a" / "moved API)").
   */
  protected override summary(c: Command.Loadable): string | undefined {
    const text = super.summary(c);
    return text === undefined || this.listing ? text : this.wrap(text);
  }

  /** whether formatCommands is asking for the summaries */
  private listing = false;

  protected override formatCommands(commands: Command.Loadable[]): string {
    this.listing = true;
    try {
      return super.formatCommands(commands);
    } finally {
      this.listing = false;
    }
  }

  protected override async showRootHelp(): Promise<void> {
    const width = Math.max(60, Math.min(this.opts.maxWidth ?? 80, 100));
    const summaries = new Map<string, string>();
    for (const c of this.config.commands) if (!c.id.includes(':')) summaries.set(c.id, c.summary ?? '');
    for (const t of this.config.topics)
      if (!summaries.get(t.name)) summaries.set(t.name, t.description ?? '');
    const line = (name: string, text: string) => {
      const head = `  ${name.padEnd(13)}`;
      const room = width - head.length;
      return `${head}${text.length > room ? `${text.slice(0, room - 1)}…` : text}`;
    };
    const out = [
      'The Merchant Payments API from a terminal: payments, lists, and a local sandbox.',
      '',
      'USAGE',
      '  $ mpay <command> [flags]',
      '  $ mpay [global flags] <command> [flags]',
      '',
      'The global flags (--profile, --env, --base-url, --json, --query, --debug,',
      '--no-input, --yes, --timeout, --trace) go before the command or after it.',
      '',
      ...rootGroups(this.config.commands).flatMap(([title, ids]) => [
        title,
        ...ids.map((id) => line(id, summaries.get(id) ?? '')),
        '',
      ]),
      'EXAMPLES',
      ...examples.flatMap(([cmd, what]) => [`  # ${what}`, `  $ ${cmd}`]),
      '',
      'LEARN MORE',
      '  mpay <command> --help   flags, examples and columns of a command',
      "  docs/commands.md        every command's help in one page",
      '  README.md, docs/        set-up, exit codes, and how the API is read',
    ];
    this.log(out.join('\n'));
  }
}

/**
 * oclif's command_not_found hook: `mpay: unknown command "depost"` with the nearest ones, exit 2; with
 * --json (`mpay histroy --json`), the error document on stdout as well, as for every failure.
 */
export const commandNotFound: Hook.CommandNotFound = async function (opts) {
  const io = systemIO();
  const rest = opts.argv ?? [];
  if (opts.id.startsWith('-')) return unknownLeadingFlag(opts.id, rest, io);
  const typed = opts.id.replace(/:/g, ' ');
  const names = [...new Set(opts.config.commands.map((c: Command.Loadable) => c.id.replace(/:/g, ' ')))];
  const near = nearest(typed, names);
  const { reportError } = await import('../../ui/report-error.js');
  io.exitCode = await reportError(
    io,
    new UsageError(`unknown command "${typed}"`, {
      hint: near.length
        ? `did you mean ${near.map((n) => `\`mpay ${n}\``).join(' or ')}?`
        : '`mpay --help` lists the commands',
    }),
    { json: rest.includes('--json') },
  );
};

/**
 * A mistyped flag before the command (`mpay --jsno countries`): oclif takes it for the command's name. It is
 * answered as one after the command is, with the nearest global flag and the line with it mended, exit 2.
 */
async function unknownLeadingFlag(
  word: string,
  rest: readonly string[],
  io: ReturnType<typeof systemIO>,
): Promise<void> {
  const eq = word.indexOf('=');
  const name = eq > 0 ? word.slice(0, eq) : word;
  const names = [...Object.keys(globalFlags).map((n) => `--${n}`), '--help', '--version'];
  const near = nearest(name, names)[0];
  const mended = near && commandLine(['mpay', `${near}${eq > 0 ? word.slice(eq) : ''}`, ...rest]);
  const { reportError } = await import('../../ui/report-error.js');
  io.exitCode = await reportError(
    io,
    new UsageError(`Nonexistent flag: ${name}`, {
      hint: mended
        ? `Did you mean ${near}? \`${mended}\``
        : '`mpay --help` lists the global flags and the commands',
    }),
    { json: rest.includes('--json') },
  );
}
