// Turns one HTTP answer (status, content type, body text) into the spec's data or a typed error. Pure, so
// that property tests can feed it any status and any bytes: it returns, or throws an MpayError, and
// nothing else.
import * as z from 'zod/mini';
import { MpayError, ServerError, errorForStatus, type FieldErrors } from '../common/errors.js';
import * as s from './schemas.js';

/** `what` names the call in messages: "GET /" and the path below /restapi/v1. */
export function parseJsonBody(
  what: string,
  status: number,
  contentType: string | undefined,
  text: string,
): unknown {
  if (text.trim() === '')
    throw new ServerError(`The API answered ${what} with an empty body (HTTP ${status})`, { status });
  try {
    return JSON.parse(text);
  } catch {
    const html = /html/i.test(contentType ?? '') || /^\s*</.test(text);
    throw new ServerError(
      `The API answered ${what} with ${html ? 'an HTML page' : 'a body that is not JSON'} (HTTP ${status})`,
      {
        status,
        hint: 'A proxy or load balancer may be in the way; run with --debug to see the body',
      },
    );
  }
}

function hintFor(status: number): string | undefined {
  if (status === 401)
    return 'The bearer token was refused: run `mpay token` to get a new one, or `mpay login` again';
  if (status === 403) return 'Check the merchant key, site id and API key: `mpay doctor`';
  if (status === 404)
    return 'The transaction is no longer in status initiated; `mpay history show` tells what mpay knows of it';
  if (status >= 500) return 'The server failed; try again later, with --debug to see the body';
  return undefined;
}

function isShapeA(body: unknown): boolean {
  const b = body as { success?: unknown; message?: unknown } | null;
  return !!b && typeof b === 'object' && b.success === false && typeof b.message === 'string';
}

function notFound(what: string, status: number): MpayError {
  return new ServerError(
    `Not found: ${what} is not a route of the API here (HTTP ${status}); check the base URL`,
    {
      status,
      hint: 'The base URL is the part before /restapi/v1, e.g. https://api.example.com: `mpay config get <env>.base_url`, or --base-url',
    },
  );
}

/** The typed error of a failure status, with the API's message and per-field messages when it sent them. */
export function failureError(
  what: string,
  status: number,
  contentType: string | undefined,
  text: string,
): MpayError {
  const ErrorClass = errorForStatus(status);
  let body: unknown;
  try {
    body = parseJsonBody(what, status, contentType, text);
  } catch (err) {
    if (status === 404) return notFound(what, status);
    // A failure that is not JSON keeps the class its status earns (an HTML 401 is still auth), but 5xx.
    if (status >= 500) return err as MpayError;
    return new ErrorClass(`HTTP ${status} from ${what}: ${(err as Error).message}`, {
      status,
      hint: hintFor(status),
    });
  }
  const parsed = s.Failure.safeParse(body);
  // The API's 404 means "transaction not initiated", in its own shape A. Any other 404 (a framework's
  // route-not-found, a proxy's page) means the request went to the wrong place.
  if (status === 404 && !isShapeA(body)) return notFound(what, status);
  const message = parsed.success ? parsed.data.message : `HTTP ${status} from ${what}`;
  let fields: FieldErrors = {};
  if (parsed.success && 'errors' in parsed.data && parsed.data.errors && !Array.isArray(parsed.data.errors)) {
    fields = parsed.data.errors as FieldErrors;
  }
  return new ErrorClass(message, { status, fields, hint: hintFor(status) });
}

/** A 2xx answer's envelope, checked against the data schema of the call. */
export function successData<T extends z.ZodMiniType>(
  what: string,
  status: number,
  contentType: string | undefined,
  text: string,
  data: T,
): { message?: string | null; data: z.infer<T> } {
  const parsed = s.envelope(data).safeParse(parseJsonBody(what, status, contentType, text));
  if (!parsed.success) {
    throw new ServerError(`The API answered ${what} with JSON that is not what the spec describes`, {
      status,
      hint: 'Run again with --debug to see the body',
    });
  }
  return parsed.data as { message?: string | null; data: z.infer<T> };
}

/**
 * The `data` of an answer's JSON, whose fields (has_token, status, token, transaction_id) are read where no
 * schema applies (a replay, `mpay api`): an object without them when the text is not JSON (or none:
 * String(undefined) is not JSON either) or its `data` is missing, and a `data` that is a string, a number
 * or an array has none of them either.
 */
export function dataOf(text: string | undefined): Record<string, unknown> {
  try {
    return Object((JSON.parse(String(text)) as { data?: unknown }).data) as Record<string, unknown>;
  } catch {
    return {};
  }
}
