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

  constructor(io: IO) {
    this.context = { input: io.stdin, output: io.stderr, clearPromptOnDone: false };
    const width = io.stderrIsTTY ? (io.stderr as NodeJS.WriteStream).columns || io.width : undefined;
    this.fit = (text, hang) => (width ? foldProse(text, width - 2, hang) : text);
  }

  async input(o: {
    message: string;
    default?: string;
    validate?: (v: string) => true | string;
  }): Promise<string> {
    const { input } = await prompts();
    return input(
      { message: this.fit(o.message, '  '), default: o.default, validate: this.fitting(o.validate) },
      this.context,
    );
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
