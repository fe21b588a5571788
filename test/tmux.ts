// A real pseudo-terminal for the interactive tests: tmux runs mpay, keys are sent one answer at a time,
// and the screen is read back.
//
// Waits are on events: a control-mode client (tmux -C) stays attached to the session and tells of every
// output the program writes (%output); a wait reads the screen again after each one (through that client:
// no process spawned a look), until what it waits for shows or its deadline passes, and then it fails with
// the screen it saw. The server ends with the test: kill() in the test's finally (a test that timed out
// gets there too, as each of its waits has a deadline of its own), when the worker exits, and, were the
// worker killed outright, when the control client loses its stdin (the session is destroy-unattached, and
// a server with no session exits). (Not onTestFinished: in a file whose tests run concurrently it would
// name another test.)
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bin } from './helpers.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const live = new Set<Tmux>();
process.on('exit', () => {
  for (const t of live) t.kill();
});
let count = 0;

export class Tmux {
  private readonly socket: string;
  private control?: ChildProcessWithoutNullStreams;
  /** the answers the control client owes, in the order its commands were sent */
  private readonly replies: Array<{ ok: (lines: string[]) => void; fail: (e: Error) => void }> = [];
  /** called on each output of the program (and when the control client ends) */
  private readonly listeners = new Set<() => void>();
  private ended = false;

  constructor(name: string) {
    this.socket = `mpay-test-${process.pid}-${++count}-${name}`;
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
    live.add(this);
    this.tmux('new-session', '-d', '-x', String(width), '-y', '50', '-s', 'main', cmd);
    this.attach();
  }

  /** The control client: the program's output as events, and the screen read without a process a look. */
  private attach(): void {
    const c = spawn('tmux', ['-L', this.socket, '-C', 'attach-session', '-t', 'main'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.control = c;
    let rest = '';
    let block: string[] | undefined;
    let ours = false;
    let armed = false;
    c.stdout.setEncoding('utf8');
    c.stdout.on('data', (chunk: string) => {
      rest += chunk;
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (block) {
          // a command's answer: %begin, its lines, %end or %error (no notification comes inside one)
          const end = /^%(end|error) \d+ \d+ (\d+)$/.exec(line);
          if (!end) block.push(line);
          else {
            const lines = block;
            block = undefined;
            if (ours) {
              const r = this.replies.shift();
              if (end[1] === 'end') r?.ok(lines);
              else r?.fail(new Error(`tmux: ${lines.join('\n')}`));
            } else if (!armed) {
              // the attach itself answered: from now on the session ends when this client does
              armed = true;
              this.send('set-option -t main destroy-unattached on').catch(() => undefined);
            }
          }
          continue;
        }
        const begin = /^%begin \d+ \d+ (\d+)$/.exec(line);
        if (begin) {
          block = [];
          ours = begin[1] === '1';
        } else if (line.startsWith('%output ')) this.emit();
      }
    });
    c.stderr.resume();
    c.stdin.on('error', () => undefined);
    c.on('close', () => {
      this.ended = true;
      for (const r of this.replies.splice(0)) r.fail(new Error('the tmux control client ended'));
      this.emit();
    });
  }

  private emit(): void {
    for (const l of [...this.listeners]) l();
  }

  /** A command through the control client; its output lines. */
  private send(command: string): Promise<string[]> {
    const c = this.control;
    if (!c || this.ended) return Promise.reject(new Error('tmux: no control client'));
    return new Promise((ok, fail) => {
      this.replies.push({ ok, fail });
      c.stdin.write(`${command}\n`);
    });
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

  /** The screen, read through the control client when it is there. */
  private async look(): Promise<string> {
    if (!this.control || this.ended) return this.screen();
    return `${(await this.send('capture-pane -p -J -S -500 -t main')).join('\n')}\n`;
  }

  /**
   * Waits until the screen satisfies `ok` (`what` names it in the failure): read now, then again after each
   * output of the program; past the deadline, fails with the screen it saw last.
   */
  async waitUntilScreen(what: string, ok: (screen: string) => boolean, timeoutMs = 15_000): Promise<string> {
    let last = '';
    let dirty = true;
    let late = false;
    let wake: (() => void) | undefined;
    const listener = () => {
      dirty = true;
      wake?.();
    };
    this.listeners.add(listener);
    const timer = setTimeout(() => {
      late = true;
      wake?.();
    }, timeoutMs);
    try {
      for (;;) {
        if (dirty) {
          dirty = false;
          last = await this.look();
          if (ok(last)) return last;
        }
        if (late) break;
        // the next output, or the deadline
        if (!dirty) await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    } finally {
      clearTimeout(timer);
      this.listeners.delete(listener);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; screen:\n${last}`);
  }

  waitFor(re: RegExp, timeoutMs = 15_000): Promise<string> {
    return this.waitUntilScreen(String(re), (s) => re.test(s), timeoutMs);
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
    if (!live.delete(this)) return;
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
    this.control?.kill();
    // the server's socket, which tmux leaves behind when it is killed
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, this.socket), {
      force: true,
    });
  }
}

/**
 * At most `n` of the given jobs at once, the others queued in order: a file whose terminal tests run
 * concurrently keeps the processes it starts at a time to what two cores run well.
 */
export function slots(n: number): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const queue: Array<() => void> = [];
  return async (job) => {
    if (running >= n) await new Promise<void>((r) => queue.push(r));
    else running++;
    try {
      return await job();
    } finally {
      const next = queue.shift();
      if (next) next();
      else running--;
    }
  };
}

/** What a terminal 80 columns wide (or `width`) shows of one run, up to the shell's EXIT= line, and that exit. */
export async function onTerminal(name: string, args: string[], env: Record<string, string>, width = 80) {
  const t = new Tmux(name);
  try {
    t.start(args, env, undefined, width);
    const screen = await t.waitFor(/EXIT=\d+/, 60_000);
    return {
      screen: screen.slice(0, screen.lastIndexOf('EXIT=')).trimEnd(),
      exit: Number(/EXIT=(\d+)/.exec(screen)![1]),
    };
  } finally {
    t.kill();
  }
}
