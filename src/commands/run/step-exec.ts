// How a step of `mpay run` is sent, in this process (no child per step): a command through its own oclif
// class, with an IO of its own whose --json output becomes the step's result, and the run's Factory (its
// context, its one money gate, journal and locks); a raw request through `mpay api`'s own callApi, so a
// money endpoint passes the same gate and journal as `mpay api` does. Nothing here reaches the wire
// another way.
import { MpayError } from '../../common/errors.js';
import { failureError } from '../../api/response.js';
import { commandLine } from '../../common/shell-words.js';
import type { RawAnswer } from '../../api/wire.js';
import type { Factory } from '../../factory.js';
import type { StepOutcome } from '../../flows/scenario/scenario-expect.js';
import type { ResolvedStep, StepExecutor } from '../../flows/scenario/scenario-run.js';
import { memoryIO } from '../../io/io.js';
import { callApi } from '../api/run.js';
import type { Host } from '../base/base-command.js';

type RunCommand = (id: string, argv: string[], host: Host) => Promise<void>;

export function stepExecutor(f: Factory, runCommand: RunCommand): StepExecutor {
  return (s) => (s.step.run ? commandStep(s, f, runCommand) : requestStep(s, f));
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** A step's flags as a command line: --name=value, a switch as --name or --no-name, a list repeated. */
function flagArgs(flags: ResolvedStep['flags']): string[] {
  return flags.flatMap(({ name, value }) => {
    const bare = name.replace(/^-+/, '');
    if (value === true) return [`--${bare}`];
    if (value === false) return [`--no-${bare}`];
    const values = Array.isArray(value) ? value : [value];
    return values.map((v) => `--${bare}=${text(v)}`);
  });
}

async function commandStep(s: ResolvedStep, f: Factory, runCommand: RunCommand) {
  const run = s.step.run!;
  const id = run.words.join(':');
  const given = [...s.args.map(text), ...flagArgs(s.flags)];
  const sent = `mpay ${commandLine([...run.words, ...given])}`;
  // `mpay api --include` prints the answer as sent with its status line, which the step's result reads.
  const api = id === 'api';
  const io = memoryIO({ interrupts: f.io.interrupts, env: f.environ });
  await runCommand(id, [...given, api ? '--include' : '--json'], { io, environ: f.environ, run: f });
  const out = io.stdoutText();
  if (api) return { sent, ...includedAnswer(out, io.exitCode) };
  const result = parsed(out);
  const error = (result as { error?: { kind?: string; status?: number | null } } | undefined)?.error;
  return {
    sent,
    exit: io.exitCode,
    kind: error?.kind,
    status: error?.status,
    result: result ?? (io.exitCode ? { error: { message: io.stderrText().trim() } } : null),
  };
}

function parsed(out: string): unknown {
  if (!out.trim()) return undefined;
  try {
    return JSON.parse(out);
  } catch {
    return out;
  }
}

/** `mpay api --include`'s output: the status line, the headers, a blank line, the answer. */
function includedAnswer(out: string, exit: number): StepOutcome {
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(out)?.[1]);
  const cut = out.indexOf('\n\n');
  const body = cut >= 0 ? out.slice(cut + 2) : out;
  return {
    exit,
    status: Number.isFinite(status) ? status : undefined,
    result: parsed(body) ?? null,
  };
}

async function requestStep(s: ResolvedStep, f: Factory): Promise<StepOutcome & { sent: string }> {
  const req = s.step.request!;
  const path = text(s.path);
  const sent = `${req.method} ${path.startsWith('/') ? '' : '/'}${path}`;
  try {
    const { answer } = await callApi(
      {
        method: req.method,
        path,
        body: s.body,
        credentials: req.credentials,
        encoding: req.encoding,
      },
      f.forIO(memoryIO({ interrupts: f.io.interrupts, env: f.environ })),
    );
    return { sent, ...answerOutcome(sent, answer!) };
  } catch (err) {
    if (!(err instanceof MpayError)) throw err;
    return { sent, exit: err.exitCode, kind: err.kind, status: err.status, result: err.toJSON() };
  }
}

/** An answer whatever its status: the exit code and kind `mpay api` gives it, and its body. */
function answerOutcome(what: string, a: RawAnswer): StepOutcome {
  const result = parsed(a.text) ?? null;
  if (a.status < 300) return { exit: 0, status: a.status, result };
  const e = failureError(what, a.status, a.contentType, a.text);
  return { exit: e.exitCode, kind: e.kind, status: a.status, result };
}
