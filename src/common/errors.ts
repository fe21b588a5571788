// Every failure mpay reports is one of these classes. The exit code of each kind lives here and only here
// (the exit-code table of the README).

export const exitCodes = {
  unexpected: 1,
  usage: 2,
  auth: 3,
  validation: 4,
  state: 5,
  precondition: 6,
  server: 7,
  network: 8,
  local: 9,
  busy: 11,
  rate_limited: 12,
  /** an output the command was to write (a report, --out, --trace) failed after requests left */
  output_failed: 15,
  confirmation_required: 16,
  cancelled: 130,
} as const;

export type ErrorKind = keyof typeof exitCodes;

/**
 * Not a failure: `mpay replay` ran every call, and some answered otherwise than the trace recorded (README).
 * Apart from the codes above so that a script tells "the server differs" from "the replay could not run".
 */
export const replayDiffersExitCode = 13;

/**
 * Not a failure of mpay's: `mpay run` ran its scenarios, and some step's expectation did not hold (README).
 * The next free code: a script tells "the scenario found a difference" from "the run could not start".
 */
export const scenarioFailedExitCode = 14;
export type FieldErrors = Record<string, string[]>;

export interface ErrorJson {
  error: { kind: ErrorKind; status: number | null; message: string; fields: FieldErrors; hint?: string };
}

export class MpayError extends Error {
  readonly kind: ErrorKind = 'unexpected';
  /** HTTP status when the failure came from a response. */
  status: number | null = null;
  fields: FieldErrors = {};
  /** One line telling the user what to do next. */
  hint?: string;

  constructor(
    message: string,
    opts: { status?: number | null; fields?: FieldErrors; hint?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.status = opts.status ?? null;
    this.fields = opts.fields ?? {};
    this.hint = opts.hint;
  }

  // A getter: the subclass's kind is set after this constructor runs, and bundling renames classes.
  override get name(): string {
    return `MpayError(${this.kind})`;
  }

  get exitCode(): number {
    return exitCodes[this.kind];
  }

  toJSON(): ErrorJson {
    return {
      error: {
        kind: this.kind,
        status: this.status,
        message: this.message,
        fields: this.fields,
        ...(this.hint ? { hint: this.hint } : {}),
      },
    };
  }
}

export class UnexpectedError extends MpayError {
  override readonly kind = 'unexpected' as const;
}
/** Bad flags or input, rejected before any request. */
export class UsageError extends MpayError {
  override readonly kind = 'usage' as const;
}
export class AuthError extends MpayError {
  override readonly kind = 'auth' as const;
}
export class ValidationError extends MpayError {
  override readonly kind = 'validation' as const;
}
/** 404: the transaction is not in status initiated. */
export class StateError extends MpayError {
  override readonly kind = 'state' as const;
}
export class PreconditionError extends MpayError {
  override readonly kind = 'precondition' as const;
}
/** 5xx, or a body that is not the JSON the spec describes. */
export class ServerError extends MpayError {
  override readonly kind = 'server' as const;
}
export class NetworkError extends MpayError {
  override readonly kind = 'network' as const;
  /** True when the request may have reached the server (time-out or reset after sending). */
  ambiguous = false;
}

/**
 * An output the command was to write (a report, --out, --trace, --save-scenario) could not be written
 * after requests had gone out: never `usage` (exit 2 says nothing was sent). Its message says what was sent;
 * the results went to stdout.
 */
export class OutputFailedError extends MpayError {
  override readonly kind = 'output_failed' as const;
}

/** The error class for an HTTP failure status, as docs/spec-readings.md reads the statuses. */
export function errorForStatus(
  status: number,
): new (...args: ConstructorParameters<typeof MpayError>) => MpayError {
  if (status === 401 || status === 403) return AuthError;
  if (status === 422 || status === 400) return ValidationError;
  if (status === 404) return StateError;
  if (status === 412) return PreconditionError;
  if (status === 429) return RateLimitedError;
  if (status >= 500) return ServerError;
  return UnexpectedError;
}

/**
 * One of mpay's own files (config.json, the journal) cannot be read or written. Nothing was sent; the
 * message names the file and what to do, and the file is left as it was.
 */
export class LocalFileError extends MpayError {
  override readonly kind = 'local' as const;
}
/**
 * The operating system's keyring refused or failed a read, write or delete of one of mpay's secrets. Exit
 * code of a local file's failure: the keyring is where the secrets are kept, as config.json was.
 */
export class KeyringError extends LocalFileError {}

/**
 * A request left, and the journal could not record its answer: mpay no longer knows whether it was
 * applied (a batch's row is unknown, never failed). The hash token the answer carried, if any, is kept
 * for the message: it is the one thing that finds the transaction again.
 */
export class JournalAfterSendError extends MpayError {
  override readonly kind = 'local' as const;
  readonly hashToken?: string;
  constructor(message: string, opts: { hint?: string; cause?: unknown; hash_token?: string } = {}) {
    super(message, opts);
    this.hashToken = opts.hash_token;
  }
}

/**
 * A transaction, or a batch's file, that another mpay process is continuing right now: nothing was sent,
 * so that no reference goes out twice. Run it again once the other has finished.
 */
export class BusyError extends MpayError {
  override readonly kind = 'busy' as const;
}

/**
 * The server kept answering 429 (or 503 with Retry-After) after every wait mpay allows. Such an answer
 * says the request was not processed: nothing happened, and the same command can be run again later.
 */
export class RateLimitedError extends MpayError {
  override readonly kind = 'rate_limited' as const;
  /** how long the server asked to wait, in ms, when it said so */
  retryAfterMs?: number;
}

/**
 * A transaction asked to be continued at a server or merchant (or from a profile or environment) other than
 * its own. A usage error, with the place it belongs to.
 */
export class ElsewhereError extends UsageError {
  readonly place?: { server: string; merchant: string; profile: string; env: string };
  constructor(
    message: string,
    opts: ConstructorParameters<typeof MpayError>[1] & { place?: ElsewhereError['place'] } = {},
  ) {
    super(message, opts);
    this.place = opts.place;
  }
}

/**
 * A live money call with no one to ask (no terminal, or an MCP client that cannot be asked) and no --yes:
 * nothing was sent. A code of its own, so that a script tells "confirm it" from a bad flag or row (usage).
 */
export class ConfirmationRequiredError extends MpayError {
  override readonly kind = 'confirmation_required' as const;
}

/** Ctrl-C, or a confirmation answered no: nothing more was sent. */
export class CancelledError extends MpayError {
  override readonly kind = 'cancelled' as const;
}

/** Wraps anything thrown into an MpayError so that callers print one thing, never a stack. */
export function toMpayError(err: unknown): MpayError {
  if (err instanceof MpayError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new UnexpectedError(message, { cause: err });
}
