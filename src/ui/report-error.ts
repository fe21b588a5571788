// The one place where anything a command throws becomes what the person and the script see: the JSON
// error document on stdout (with --json), a one-line message with the API's per-field messages and a hint
// on stderr, and the exit code of its kind (common/errors.ts). Never a stack, except for a bug under --debug.
// The oclif shell and the in-process test harness both go through here.
import type { PreparedRequest } from '../api/wire.js';
import { CancelledError, MpayError, UsageError, toMpayError } from '../common/errors.js';
import { Secrets } from '../api/redact.js';
import type { IO } from '../io/io.js';
import { jsonText } from './output.js';
import { printDryRun } from './print.js';

export interface ReportOptions {
  json?: boolean;
  debug?: boolean;
  /** `deposit initiate`, for the usage hint */
  command?: string;
  /** a usage error's "did you mean": the nearest flag or subcommand to one mistyped */
  suggestion?: string;
  /** the run's secrets (the Factory's), scrubbed by value from what is printed */
  secrets?: Secrets;
  /** the run sent a money request: a Ctrl-C at a prompt then says nothing *more* was sent */
  moneySent?: boolean;
}

/** Prints the failure and returns the exit code. A dry run's signal is not a failure: it prints the request. */
export async function reportError(io: IO, err: unknown, opts: ReportOptions = {}): Promise<number> {
  const secrets = opts.secrets ?? new Secrets();
  // Checks go by marker and name properties, never by class name: the bundle renames classes.
  const marked = err as {
    isDryRun?: boolean;
    request?: PreparedRequest;
    name?: string;
    oclif?: { exit?: number };
    message?: string;
  };
  if (marked?.isDryRun && marked.request) {
    await printDryRun(io, opts.json, marked.request, secrets);
    return 0;
  }
  let e: MpayError;
  if (err instanceof MpayError) e = err;
  // Ctrl-C at a prompt: nothing more is sent; what was sent is in the journal.
  else if (marked?.name === 'ExitPromptError') {
    io.stderr.write('\n');
    e = new CancelledError(
      opts.moneySent ? 'cancelled; nothing more was sent' : 'cancelled; nothing was sent',
    );
  }
  // oclif's parse errors (unknown flag, missing argument, bad option) carry exit code 2.
  else if (marked?.oclif?.exit === 2) {
    // "Parsing --port\n\tExpected an integer but received: abc\nSee more help with --help": what and why.
    const lines = (marked.message ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !/^See more help/.test(l) && !/^The following errors? occurred:?$/.test(l));
    // oclif's "Missing required flag upstream", one line a flag: said as mpay's own gather says it
    const missing = lines.flatMap(
      (l) => /^(?:The following errors? occurred: )?Missing required flag (\S+)$/.exec(l)?.[1] ?? [],
    );
    const message = missing.length
      ? `Missing ${missing.map((f) => `--${f}`).join(', ')}`
      : lines.join(': ').replace(/::/g, ':');
    e = new UsageError(message || 'Invalid usage', {
      hint: `${opts.suggestion ? `Did you mean ${opts.suggestion}? ` : ''}See \`mpay ${opts.command ?? ''} --help\``.replace(
        '  ',
        ' ',
      ),
    });
  } else e = toMpayError(err);
  // A secret of the run that reached a message (an echo of the server's, a value in a URL) is scrubbed by
  // value; by name would hide the API's own field messages (merchant_key: "is invalid").
  if (opts.json) io.out(secrets.scrub(jsonText(e.toJSON(), io.ndjson ? 0 : 2)));
  // Lines for a person: the IO folds them to a terminal's width (a command in a hint stays pasteable).
  io.note(`mpay: ${secrets.scrub(e.message)}`);
  if (!opts.json) {
    for (const [field, msgs] of Object.entries(e.fields)) io.note(`  ${field}: ${msgs.join(' ')}`);
    if (e.hint) io.note(`hint: ${secrets.scrub(e.hint)}`);
  }
  if (e.kind === 'unexpected' && opts.debug) io.errLine((e.cause as Error)?.stack ?? e.stack ?? '');
  return e.exitCode;
}
