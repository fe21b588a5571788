// The one object that touches the process's streams (design.md, "io + factory"): stdout for results,
// stderr for people, stdin for answers, and what they are (terminals or not, colour, width). Commands,
// the reporter and the prompter write through it; a test can hand in one made of plain streams.
import type { Readable, Writable } from 'node:stream';
import { clean } from './ui/output.js';

export interface IO {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** CI=true: never prompt, even on a terminal */
  readonly ci: boolean;
  /** columns of the terminal on stdout (80 when it is not one) */
  readonly width: number;
  /** whether mpay may ask: stdin is a terminal, not CI, and --no-input was not given */
  canPrompt(noInput?: boolean): boolean;
  /** one line for a person on stderr, escape sequences from outside made visible */
  note(line: string): void;
  /** `mpay: warning: …` on stderr */
  warn(message: string): void;
}

export function systemIO(env: NodeJS.ProcessEnv = process.env): IO {
  const io: IO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    ci: env.CI === 'true' || env.CI === '1',
    width: process.stdout.columns || 80,
    canPrompt: (noInput = false) => !noInput && !io.ci && io.stdinIsTTY,
    note: (line) => {
      process.stderr.write(`${clean(line)}\n`);
    },
    warn: (message) => {
      process.stderr.write(`mpay: warning: ${clean(message)}\n`);
    },
  };
  return io;
}
