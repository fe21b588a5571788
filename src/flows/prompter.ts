// The only way a flow asks a person anything. The terminal implementation (inquirer) lives in ui/; tests
// hand a flow a ScriptedPrompter with the answers written down.

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  input(o: { message: string; default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(o: { message: string; validate?: (v: string) => true | string }): Promise<string>;
  select<T>(o: { message: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
}

/** Answers in order; fails loudly when a flow asks more, or something else, than the script expects. */
export class ScriptedPrompter implements Prompter {
  readonly asked: string[] = [];
  constructor(private readonly answers: Array<string | boolean | number>) {}

  private next(message: string): string | boolean | number {
    this.asked.push(message);
    if (this.answers.length === 0) throw new Error(`ScriptedPrompter: no answer left for "${message}"`);
    return this.answers.shift()!;
  }

  async input(o: {
    message: string;
    default?: string;
    validate?: (v: string) => true | string;
  }): Promise<string> {
    const raw = this.next(o.message);
    const v = raw === '' && o.default !== undefined ? o.default : String(raw);
    const ok = o.validate?.(v) ?? true;
    if (ok !== true) throw new Error(`ScriptedPrompter: "${v}" rejected for "${o.message}": ${ok}`);
    return v;
  }

  async password(o: { message: string; validate?: (v: string) => true | string }): Promise<string> {
    return this.input(o);
  }

  async select<T>(o: { message: string; choices: Choice<T>[] }): Promise<T> {
    const raw = this.next(o.message);
    const found = o.choices.find((c) => String(c.value) === String(raw) || c.name === String(raw));
    if (!found)
      throw new Error(
        `ScriptedPrompter: "${String(raw)}" is not a choice of "${o.message}": ${o.choices.map((c) => String(c.value)).join(', ')}`,
      );
    return found.value;
  }

  async confirm(o: { message: string }): Promise<boolean> {
    const raw = this.next(o.message);
    return raw === true || raw === 'y' || raw === 'yes';
  }

  /** True when the flow used every answer. */
  get done(): boolean {
    return this.answers.length === 0;
  }
}
