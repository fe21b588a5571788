// The one object that touches the process's streams (docs/architecture.md): stdout for results,
// stderr for people, stdin for answers, and what they are (terminals or not, colour, width), plus the
// exit code. Commands, the reporter and the prompter write through it. memoryIO() is the same object
// made of plain streams, for running a command in-process in a test.
import { PassThrough, Writable, type Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { clean } from './clean.js';
import { foldText, type Text } from './fold.js';
import { makeInterrupts, type Interrupts } from './interrupts.js';
import { spin } from './spinner.js';

export interface IO {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** CI=true: never prompt, even on a terminal */
  readonly ci: boolean;
  /** colour and bold on stderr: a terminal, and neither NO_COLOR nor TERM=dumb (FORCE_COLOR forces it) */
  readonly colour: boolean;
  /** columns of the terminal on stdout (80 when it is not one) */
  readonly width: number;
  /**
   * The width a table on stdout fits: the terminal's; in a pipe or a file, COLUMNS when the environment
   * sets it (a person asked for that width); else none, and a table comes whole.
   */
  readonly tableWidth: number | undefined;
  /** the same for a table on stderr (a batch's problems): stderr's terminal, else COLUMNS, else none */
  readonly stderrTableWidth: number | undefined;
  /** whether mpay may ask: stdin is a terminal, not CI, and --no-input was not given */
  canPrompt(noInput?: boolean): boolean;
  /**
   * A result on stdout, with a newline, as it is (JSON, CSV, a table already fitted, a script) in a pipe or
   * a file; on a terminal, with every escape, control and bidi character made visible (clean): the one
   * place what mpay prints to stdout passes, so nothing a customer, a file or a server wrote can drive the
   * terminal. (A printed command holds none raw: common/shell-words.ts writes them as $'\\xHH'.)
   */
  out(text: string): void;
  /** stdout without a newline added (a stream of CSV or JSON in chunks): cleaned on a terminal as out() is */
  write(chunk: string): boolean;
  /** a line on stderr that is not prose (a table, a --debug line): cleaned on a terminal, never folded */
  errLine(line: string): void;
  /**
   * Prose for a person on stdout (a report, the sandbox's start-up, a result in words), with a newline:
   * escape sequences from outside made visible, and folded to the terminal's width when stdout is one.
   */
  say(text: Text): void;
  /** a line for a person on stderr: escape sequences from outside made visible, folded as say() folds */
  note(line: Text): void;
  /** `mpay: warning: …` on stderr, folded as note() folds */
  warn(message: string): void;
  /**
   * The one rule for what a person reads on a terminal: `text` folded to the width of `stream` when that
   * is a terminal (prose at spaces, a command line only with ` \`), whole elsewhere. say(), note() and
   * warn() print through it; a writer of its own (the batch's progress bar) calls it.
   */
  fold(text: Text, stream?: 'stdout' | 'stderr'): string;
  /** all of stdin, for --otp-stdin and --merchant-key-stdin */
  readStdin(): Promise<string>;
  /** the process's exit code (set once a command knows it) */
  exitCode: number;
  /** --query: the JMESPath filter of this run's --json output (ui/print.ts applies it) */
  query?: string;
  /** this run's --json output is one record a line (a batch): its error envelope is one line too */
  ndjson?: boolean;
  /** a spinner on stderr while `work` runs (on a terminal; elsewhere nothing is drawn) */
  spin<T>(label: string, work: Promise<T>): Promise<T>;
  /** Ctrl-C and SIGTERM: an AbortSignal for run functions, graceful work, and the one handler */
  readonly interrupts: Interrupts;
}

interface Streams {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  width: number;
  /** columns of the terminal on stderr */
  errWidth: number;
}

function makeIO(
  s: Streams,
  env: NodeJS.ProcessEnv,
  exit: { get: () => number; set: (n: number) => void },
  interrupts: Interrupts,
): IO {
  const ci = env.CI === 'true' || env.CI === '1';
  const colour =
    env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0'
      ? true
      : s.stderrIsTTY && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const columns = Number(env.COLUMNS);
  // a table not on a terminal fits COLUMNS only when the environment sets it: a person asked for that width
  const asked = Number.isInteger(columns) && columns > 0 ? columns : undefined;
  const { errWidth, ...streams } = s;
  const fold = (text: Text, stream: 'stdout' | 'stderr' = 'stderr') =>
    foldText(
      text,
      stream === 'stdout' ? (s.stdoutIsTTY ? s.width : undefined) : s.stderrIsTTY ? errWidth : undefined,
    );
  const shown = (text: string, terminal: boolean) => (terminal ? clean(text) : text);
  const cleaned = (text: Text): Text =>
    typeof text === 'string' ? clean(text) : { label: clean(text.label), command: clean(text.command) };
  return {
    ...streams,
    ci,
    colour,
    tableWidth: s.stdoutIsTTY ? s.width : asked,
    stderrTableWidth: s.stderrIsTTY ? errWidth : asked,
    canPrompt: (noInput = false) => !noInput && !ci && s.stdinIsTTY,
    out: (line) => void s.stdout.write(`${shown(line, s.stdoutIsTTY)}\n`),
    write: (chunk) => s.stdout.write(shown(chunk, s.stdoutIsTTY)),
    errLine: (line) => void s.stderr.write(`${shown(line, s.stderrIsTTY)}\n`),
    say: (text) => void s.stdout.write(`${fold(cleaned(text), 'stdout')}\n`),
    note: (line) => void s.stderr.write(`${fold(cleaned(line))}\n`),
    warn: (message) => void s.stderr.write(`${fold(`mpay: warning: ${clean(message)}`)}\n`),
    fold,
    readStdin: () => text(s.stdin),
    spin: (label, work) =>
      s.stderrIsTTY ? spin(s.stderr, label, work, (h) => interrupts.beforeNotes(h)) : work,
    interrupts,
    get exitCode() {
      return exit.get();
    },
    set exitCode(n: number) {
      exit.set(n);
    },
  };
}

let system: IO | undefined;

type Listener = (...a: unknown[]) => void;
/** the stand-ins of the process's signal listeners set aside while graceful work runs (systemIO) */
const standIns = new WeakSet<Listener>();

/**
 * The process's own streams, made once, by the entry (commands/base/base-command.ts): the one object that
 * ends the process (a reader gone, Ctrl-C, SIGTERM).
 */
export function systemIO(env: NodeJS.ProcessEnv = process.env): IO {
  if (system) return system;
  const interrupts = makeInterrupts(
    (code) => process.exit(code),
    // conf's atomic writes load when-exit, whose SIGINT listener re-raises the signal and would kill the
    // process, graceful work and all: while that work runs, mpay's is the only listener that acts. One
    // added while it runs (conf loaded in the middle of a step of `mpay run`) is set aside as soon as it is
    // added: left to act, its re-raised signal would count one Ctrl-C twice, as a second that stops at once.
    // Set aside in place: a stand-in that does nothing takes its place, and its owner's removal of it
    // (a prompt's, when it closes) removes the stand-in, so that only those still there come back.
    () => {
      const names = ['SIGINT', 'SIGTERM'] as const;
      const aside: [NodeJS.Signals, Listener, Listener][] = [];
      const take = (name: NodeJS.Signals) => {
        for (const l of process.rawListeners(name) as Listener[]) {
          if (l === onSignal || standIns.has(l)) continue;
          // what the owner removes it by: the listener itself, or the one a once() wrapper wraps
          const standIn = Object.assign(() => {}, { listener: (l as { listener?: Listener }).listener ?? l });
          standIns.add(standIn);
          process.removeListener(name, l);
          process.on(name, standIn);
          aside.push([name, standIn, l]);
        }
      };
      for (const name of names) take(name);
      // 'newListener' comes before the listener is added: it is taken aside on the next tick, before any
      // signal can be delivered (signals come from the event loop)
      const added = (event: string | symbol, l: Listener) => {
        if ((names as readonly (string | symbol)[]).includes(event) && l !== onSignal && !standIns.has(l))
          process.nextTick(() => take(event as NodeJS.Signals));
      };
      process.on('newListener', added);
      return () => {
        process.removeListener('newListener', added);
        for (const [name, standIn, l] of aside.splice(0)) {
          standIns.delete(standIn);
          if (!(process.rawListeners(name) as Listener[]).includes(standIn)) continue;
          process.removeListener(name, standIn);
          process.on(name, l);
        }
      };
    },
  );
  // A reader that went away (`mpay history --json | head -2`) ends the command quietly, with its own exit
  // code (0 unless it failed): whatever it had left to print has nobody to read it. What the run
  // registered to undo at its end (a spooled stdin) is undone first. Not while the run is busy (graceful
  // work: a payment's steps, a batch, a server; or a money step the gate holds open): ending there would
  // cut a request in flight before its answer is journaled, so the work goes on to its end, its lines
  // dropped, and the run ends with its own code. A reader of stderr gone (`2>&1 >/dev/null | head -3`)
  // only drops stderr's lines.
  const exitCode = { get: () => Number(process.exitCode ?? 0), set: (n: number) => (process.exitCode = n) };
  const readerGone = (err: NodeJS.ErrnoException) =>
    err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED';
  let stdoutGone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (!readerGone(err)) throw err;
    if (stdoutGone) return;
    stdoutGone = true;
    // after this turn, once the run has set its exit code: a failure whose error meets the closed pipe still
    // ends with its own code (`mpay … --json | true` under pipefail)
    if (!interrupts.busy()) setImmediate(() => interrupts.end(exitCode.get()));
  });
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (!readerGone(err)) throw err;
  });
  // Whatever ends the process (an error mpay did not expect too) undoes what the run registered.
  process.on('exit', () => interrupts.cleanUp());
  // First in line, for the same reason: mpay says what it knows before anything ends the process.
  const onSignal = (name: NodeJS.Signals) => interrupts.fire(name as 'SIGINT' | 'SIGTERM');
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
  // A file grown past the process's size limit (ulimit -f): Node ignores SIGXFSZ so that the write fails
  // (EFBIG) and mpay says which output failed and what was sent; a library's exit handler (signal-exit)
  // would otherwise raise it again, and the process would die mid-run, its payments unsaid.
  process.on('SIGXFSZ', () => {});
  system = makeIO(
    {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      stdoutIsTTY: Boolean(process.stdout.isTTY),
      stderrIsTTY: Boolean(process.stderr.isTTY),
      stdinIsTTY: Boolean(process.stdin.isTTY),
      width: process.stdout.columns || 80,
      errWidth: process.stderr.columns || process.stdout.columns || 80,
    },
    env,
    exitCode,
    interrupts,
  );
  return system;
}

/** An IO of plain in-memory streams: what a command printed is read back with stdoutText()/stderrText(). */
export function memoryIO(
  opts: {
    stdin?: string;
    tty?: boolean;
    width?: number;
    env?: NodeJS.ProcessEnv;
    /** the interrupts of the run this IO serves (a step of `mpay run`: Ctrl-C reaches the step) */
    interrupts?: Interrupts;
  } = {},
): IO & { stdoutText(): string; stderrText(): string } {
  const chunks = { out: [] as string[], err: [] as string[] };
  const sink = (into: string[]) => {
    const w = new Writable({
      write(chunk: Buffer | string, _enc, done) {
        into.push(chunk.toString());
        done();
      },
    });
    // As the process's stdout and stderr, never ended by what pipes into it (a prompt pipes into stderr and
    // ends its own stream when answered): what the run says after a question still reaches it.
    w.end = ((...args: unknown[]) => {
      if (typeof args[0] === 'string' || Buffer.isBuffer(args[0])) w.write(args[0]);
      const done = args.find((a) => typeof a === 'function') as (() => void) | undefined;
      done?.();
      return w;
    }) as typeof w.end;
    return w;
  };
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  let code = 0;
  // An interruption (a test's io.interrupts.fire) ends the run as the process's would, with its exit code.
  const interrupts = opts.interrupts ?? makeInterrupts((n) => (code = n));
  const io = makeIO(
    {
      stdout: sink(chunks.out),
      stderr: sink(chunks.err),
      stdin,
      stdoutIsTTY: Boolean(opts.tty),
      stderrIsTTY: Boolean(opts.tty),
      stdinIsTTY: Boolean(opts.tty),
      width: opts.width ?? 80,
      errWidth: opts.width ?? 80,
    },
    opts.env ?? {},
    { get: () => code, set: (n) => (code = n) },
    interrupts,
  );
  return Object.assign(io, {
    stdoutText: () => chunks.out.join(''),
    stderrText: () => chunks.err.join(''),
  });
}
