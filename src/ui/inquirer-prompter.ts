// The terminal Prompter, on @inquirer/prompts. Prompts draw on stderr so that stdout stays the result.
import type { Choice, Prompter } from '../flows/prompter.js';
import type { IO } from '../io/io.js';
import { foldProse } from '../io/fold.js';
import { importLazily } from '../lazy-import.js';

const prompts = () => importLazily<typeof import('@inquirer/prompts')>('@inquirer/prompts');

export class InquirerPrompter implements Prompter {
  private readonly context: { input: IO['stdin']; output: IO['stderr']; clearPromptOnDone: false };

  /**
   * Folds what a prompt shows to the terminal: inquirer would break a long line at the edge and lose its
   * indent. A message follows inquirer's "? " and a choice its cursor (two columns each): their lines after
   * the first are indented to stay under the text.
   */
  private readonly fit: (text: string, hang: string) => string;

  /** how a default is drawn beside the question: dim where colour is allowed, as inquirer draws its own */
  private readonly faint: (text: string) => string;

  constructor(io: IO) {
    this.context = { input: io.stdin, output: io.stderr, clearPromptOnDone: false };
    this.faint = io.colour ? (t) => `\x1b[2m${t}\x1b[22m` : (t) => t;
    const width = io.stderrIsTTY ? (io.stderr as NodeJS.WriteStream).columns || io.width : undefined;
    this.fit = (text, hang) => (width ? foldProse(text, width - 2, hang) : text);
  }

  async input(o: {
    message: string;
    default?: string;
    validate?: (v: string) => true | string;
  }): Promise<string> {
    const { input } = await prompts();
    const def = o.default;
    if (def === undefined)
      return input({ message: this.fit(o.message, '  '), validate: this.fitting(o.validate) }, this.context);
    // The default stays the answer to an empty line, however the line was edited: inquirer forgets its
    // own at a backspace on an empty line, or once Tab has put it on the line, while the question went on
    // showing it. So mpay draws the default itself (beside an empty line, and as the answer given), and
    // reads an empty answer as it; inquirer keeps its default only for Tab, which puts it on the line.
    const answer = await input(
      {
        message: this.fit(o.message, '  '),
        default: def,
        // inquirer leaves out a part that is undefined: its own drawing of the default gives way to mpay's
        theme: { style: { defaultAnswer: () => undefined as unknown as string } },
        transformer: (v, { isFinal }) => (v !== '' ? v : isFinal ? def : this.faint(`(${def})`)),
        validate: this.fitting(o.validate && ((v: string) => o.validate!(v === '' ? def : v))),
      },
      this.context,
    );
    return answer === '' ? def : answer;
  }

  async password(o: { message: string; validate?: (v: string) => true | string }): Promise<string> {
    const { password } = await prompts();
    return password(
      { message: this.fit(o.message, '  '), mask: '*', validate: this.fitting(o.validate) },
      this.context,
    );
  }

  async select<T>(o: { message: string; choices: Choice<T>[]; default?: T }): Promise<T> {
    const { select } = await prompts();
    return select<T>(
      {
        message: this.fit(o.message, '  '),
        choices: o.choices.map((c) => ({ ...c, name: this.fit(c.name, '    ') })),
        default: o.default,
        pageSize: 12,
      },
      this.context,
    );
  }

  async confirm(o: { message: string; default?: boolean }): Promise<boolean> {
    const { confirm } = await prompts();
    return confirm({ message: this.fit(o.message, '  '), default: o.default }, this.context);
  }

  /** A validation's message folded as the prompt's own lines are (it shows under the prompt: "> "). */
  private fitting(validate?: (v: string) => true | string) {
    return (
      validate &&
      ((v: string) => {
        const r = validate(v);
        return r === true ? r : this.fit(r, '  ');
      })
    );
  }
}
