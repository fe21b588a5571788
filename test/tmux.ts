// A real pseudo-terminal for the interactive tests: tmux runs mpay, keys are sent one answer at a time,
// and the screen is read back.
import { execFileSync } from 'node:child_process';
import { bin } from './helpers.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class Tmux {
  private readonly socket: string;
  constructor(name: string) {
    this.socket = `mpay-test-${process.pid}-${name}`;
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /**
   * Runs mpay (bin/run.js on this Node, or `command`: the executable, a shell) in a new pseudo-terminal
   * `width` columns wide.
   */
  start(
    args: string[],
    env: Record<string, string>,
    command: string[] = [process.execPath, bin],
    width = 160,
  ): void {
    const vars = Object.entries({ ...env, TERM: 'xterm-256color', NO_COLOR: '1' })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(' ');
    const cmd = `env -u CI ${vars} ${[...command, ...args].map(quote).join(' ')}; echo "EXIT=$?"; sleep 120`;
    this.tmux('new-session', '-d', '-x', String(width), '-y', '50', '-s', 'main', cmd);
  }

  /**
   * Writes every byte the program sends to the terminal from now on into `file` (tmux's pipe-pane), as the
   * terminal receives it: what the screen shows, before the terminal acts on any escape in it.
   */
  record(file: string): void {
    this.tmux('pipe-pane', '-o', '-t', 'main', `cat >> ${quote(file)}`);
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', 'main');
  }

  async waitFor(re: RegExp, timeoutMs = 15_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen();
      if (re.test(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${re}; screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Types text (literally), then presses Enter. */
  answer(text: string): void {
    if (text) this.tmux('send-keys', '-t', 'main', '-l', text);
    this.tmux('send-keys', '-t', 'main', 'Enter');
  }

  /** Waits for each prompt in turn and answers it: a string is typed and entered, an array is keys. */
  async dialogue(steps: Array<[RegExp, string | string[]]>): Promise<void> {
    for (const [prompt, reply] of steps) {
      await this.waitFor(prompt);
      if (Array.isArray(reply)) this.keys(...reply);
      else this.answer(reply);
    }
  }

  /** Pastes text as a terminal does (each line end a carriage return), without pressing Enter after it. */
  paste(text: string): void {
    this.tmux('set-buffer', '-b', 'pasted', '--', text);
    this.tmux('paste-buffer', '-b', 'pasted', '-t', 'main');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...keys);
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}
