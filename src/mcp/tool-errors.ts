// A failed tool call as `mpay mcp` answers it: an `isError` result whose text and structuredContent are the
// error document of the commands' --json ({error: {kind, status, message, fields, hint}}), with what the
// kind means, the flags and API fields of a flow's message said as the tool's arguments, and every
// secret of the run scrubbed.
import { MpayError, UsageError, toMpayError, type FieldErrors } from '../common/errors.js';
import type { Secrets } from '../api/redact.js';

/**
 * A live money call the person could not be asked about (the client has no elicitation): nothing was
 * sent. The kind `confirmation_required` is the CLI's exit code 16 (a live money call without a terminal
 * and without --yes); no flag lets such a call through here.
 */
export class ConfirmationRequired extends Error {
  readonly kind = 'confirmation_required' as const;
  readonly hint =
    'Use an MCP client that supports elicitation (form mode), so that the person is asked; no flag of mpay mcp replaces the answer';
}

/** What each kind means, for an assistant that reads the error. */
const meanings: Record<string, string> = {
  usage:
    'refused before any request (an argument, or something mpay needs to send, such as credentials): nothing was sent',
  auth: 'the API refused the credentials or the token',
  validation: 'the API refused a value (HTTP 422)',
  state: 'the transaction is not in status initiated (HTTP 404)',
  precondition: 'the API refused a precondition, such as an unknown currency (HTTP 412)',
  server: 'the server failed or answered with something that is not the API',
  network:
    'no answer came (connection, DNS or time-out); a money request may or may not have been applied: see the transaction tool before sending again',
  local: "mpay's own files (config, journal) could not be used",
  busy: 'another mpay process holds this transaction: nothing was sent',
  rate_limited: 'the server kept answering 429: nothing was processed',
  cancelled: 'the person declined, or the server is ending: nothing more was sent',
  confirmation_required:
    'a money call to a live server needs the person to accept it, and this client cannot ask: nothing was sent',
  unexpected: 'a failure mpay did not expect',
};

export interface ToolError {
  error: {
    kind: string;
    status: number | null;
    message: string;
    meaning: string;
    fields: FieldErrors;
    hint?: string;
  };
}

/** A flow's words (`--first-name`, `customer_first_name`) as the tool's argument names. */
function asArguments(text: string, names: Record<string, string>): string {
  let out = text.replace(
    'Pass them as flags; with no terminal (or --no-input) mpay does not ask',
    "Give them as the tool's arguments (fields names them); mpay mcp asks nothing but the live question and the one-time code",
  );
  for (const [from, to] of Object.entries(names).sort((a, b) => b[0].length - a[0].length))
    out = out.split(from).join(to);
  return out;
}

/** A word of a printed command line as the shell reads it (mpay quotes a word with '…' when it must). */
const unquoted = (w: string) => w.replace(/^'(.*)'$/s, '$1').replace(/'\\''/g, "'");

/**
 * A command mpay printed for a person, said as the tool that does its job, with that tool's arguments;
 * undefined when no tool does (it is then kept as printed, whole: it runs as it stands).
 */
function asTool(command: string): string | undefined {
  const words = command.match(/'(?:[^']|'\\'')*'|\S+/g)?.map(unquoted) ?? [];
  if (words[0] !== 'mpay') return undefined;
  const [, verb, a, b] = words;
  const otp = words.includes('--otp');
  if (verb === 'withdraw' && a === '--resume' && b && otp)
    return `the withdraw_process tool with key ${b} and the code as otp`;
  if (verb === 'withdraw' && a === 'process' && b && otp)
    return `the withdraw_process tool with key ${b} and the code as otp`;
  if (verb === 'history' && a === 'show' && b) return `the transaction tool with key ${b}`;
  if (verb === 'doctor' && a === '--check-api-key')
    return 'the doctor tool with its argument check_api_key set to true';
  return undefined;
}

/**
 * A flow's message or hint for a tool's caller: outside its `printed commands`, the flags and API fields
 * as the tool's arguments; a printed command is never rewritten: it becomes the tool that does its job,
 * or stays whole, as it runs.
 */
export function forTools(text: string, names: Record<string, string>): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) => {
      if (!/^`.*`$/s.test(part)) return asArguments(part, names);
      return asTool(part.slice(1, -1)) ?? part;
    })
    .join('');
}

export function toolError(err: unknown, secrets: Secrets, names: Record<string, string>): ToolError {
  if (err instanceof ConfirmationRequired)
    return {
      error: {
        kind: err.kind,
        status: null,
        message: secrets.scrub(err.message),
        meaning: meanings.confirmation_required!,
        fields: {},
        hint: err.hint,
      },
    };
  const e: MpayError = toMpayError(err);
  const fields: FieldErrors = {};
  for (const [k, v] of Object.entries(e.fields)) fields[names[k] ?? k] = v.map((m) => secrets.scrub(m));
  const say = (t: string) => secrets.scrub(forTools(t, names));
  return {
    error: {
      kind: e.kind,
      status: e.status,
      message: say(e.message),
      meaning: meanings[e.kind] ?? meanings.unexpected!,
      fields,
      ...(e.hint ? { hint: say(e.hint) } : {}),
    },
  };
}

/** Arguments the input schema refused: a usage error naming each argument and why. */
export function badArguments(
  tool: string,
  issues: readonly {
    path: PropertyKey[];
    message: string;
    code: string;
    keys?: string[];
    expected?: string;
  }[],
  args: Record<string, unknown>,
): UsageError {
  const fields: FieldErrors = {};
  for (const i of issues) {
    if (i.code === 'unrecognized_keys')
      for (const k of i.keys ?? []) (fields[k] ??= []).push(`not an argument of ${tool}`);
    else {
      const name = i.path.map(String).join('.') || '(arguments)';
      const why =
        i.code !== 'invalid_type'
          ? i.message
          : args[String(i.path[0])] === undefined
            ? 'required'
            : `must be ${i.expected === 'int' ? 'a whole number' : `a ${i.expected ?? 'value of the type the schema says'}`}`;
      (fields[name] ??= []).push(why);
    }
  }
  const named = Object.entries(fields).map(([k, v]) => `${k}: ${v.join('; ')}`);
  return new UsageError(`Invalid arguments for ${tool}: ${named.join(', ')}; nothing was sent`, {
    fields,
    hint: `tools/list gives ${tool}'s input schema`,
  });
}
