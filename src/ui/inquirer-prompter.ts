// The terminal Prompter, on @inquirer/prompts. Prompts draw on stderr so that stdout stays the result.
import type { Choice, Prompter } from '../flows/prompter.js';
import type { IO } from '../io/io.js';
import { importLazily } from '../lazy-import.js';

const prompts = () => importLazily<typeof import('@inquirer/prompts')>('@inquirer/prompts');

export class InquirerPrompter implements Prompter {
  private readonly context: { input: IO['stdin']; output: IO['stderr']; clearPromptOnDone: false };

  constructor(io: IO) {
    this.context = { input: io.stdin, output: io.stderr, clearPromptOnDone: false };
  }

  async input(o: {
    message: string;
    default?: string;
    validate?: (v: string) => true | string;
  }): Promise<string> {
    const { input } = await prompts();
    return input({ message: o.message, default: o.default, validate: o.validate }, this.context);
  }

  async password(o: { message: string; validate?: (v: string) => true | string }): Promise<string> {
    const { password } = await prompts();
    return password({ message: o.message, mask: '*', validate: o.validate }, this.context);
  }

  async select<T>(o: { message: string; choices: Choice<T>[]; default?: T }): Promise<T> {
    const { select } = await prompts();
    return select<T>(
      { message: o.message, choices: o.choices, default: o.default, pageSize: 12 },
      this.context,
    );
  }

  async confirm(o: { message: string; default?: boolean }): Promise<boolean> {
    const { confirm } = await prompts();
    return confirm({ message: o.message, default: o.default }, this.context);
  }
}
