// What happens to an API request before its route sees it: it is counted, paced (--latency, --rate-limit)
// and perhaps given a fault; and, through sendReply, what a fault does to the answer on its way out.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { messages, type Reply } from './replies.js';
import {
  delayHeader,
  faultHeader,
  faultReply,
  pickFault,
  withEscapes,
  type Fault,
  type FaultOptions,
} from './faults.js';
import type { RateLimiter } from './pacing.js';
import type { SandboxState } from './state.js';

declare module 'fastify' {
  interface FastifyRequest {
    fault?: Fault;
  }
}

export const apiPrefix = '/restapi/v1';

export interface Pacing {
  latencyMs: number;
  limiter?: RateLimiter;
}

type Done = () => void;

/**
 * The onRequest hook of every route under the API's prefix. `opts` is read at each request, so that
 * POST /_sandbox/faults changes what later requests get.
 */
export function apiRequestHook(
  state: SandboxState,
  opts: FaultOptions,
  pacing: Pacing,
  log: (line: string) => void,
): onRequestHookHandler {
  const { latencyMs, limiter } = pacing;
  const faulted = (req: FastifyRequest, reply: FastifyReply, done: Done) =>
    applyFault(req, reply, done, opts, log);
  // Callback style: the common case (no fault, a valid bearer) costs no promise per request.
  return (req, reply, done) => {
    if (!req.url.startsWith(apiPrefix)) return done();
    const route = `${req.method} ${req.url.slice(apiPrefix.length).split('?')[0]}`;
    state.count(route);
    if (latencyMs > 0 || limiter) {
      const go = () => {
        const wait = limiter?.take();
        if (wait === undefined) return faulted(req, reply, done);
        state.count(`429 ${route}`);
        reply
          .code(429)
          .header('retry-after', String(wait))
          .send({ success: false, message: messages.tooManyRequests });
      };
      if (latencyMs > 0) setTimeout(go, latencyMs);
      else go();
      return;
    }
    faulted(req, reply, done);
  };
}

/** The faults that act before the route: drop the connection, wait, or answer in the route's place. */
function applyFault(
  req: FastifyRequest,
  reply: FastifyReply,
  done: Done,
  opts: FaultOptions,
  log: (line: string) => void,
): void {
  const fault = pickFault(req.headers[faultHeader], opts, req.url);
  if (!fault) return done();
  req.fault = fault;
  log(`fault ${fault} on ${req.method} ${req.url}`);
  if (fault === 'drop') {
    reply.hijack();
    req.raw.socket.destroy();
    return;
  }
  if (fault === 'slow') {
    const asked = Number(req.headers[delayHeader]);
    setTimeout(
      () => {
        // A client that gave up (time-out, killed) before the delay ended never reached the API:
        // nothing is done for it. That is the case a resumed flow must be able to send again.
        if (req.raw.socket.destroyed) {
          log(`client gone during slow ${req.method} ${req.url}: not acted on`);
          reply.hijack();
          return;
        }
        done();
      },
      Number.isFinite(asked) && asked > 0 ? asked : (opts.slowMs ?? 3000),
    );
    return;
  }
  const canned = faultReply(fault, req.url);
  if (canned) reply.code(canned.status).type(canned.type).send(canned.body);
  else done();
}

/** A route's answer, as the request's fault (if any) leaves it. */
export function sendReply(req: FastifyRequest, reply: FastifyReply, r: Reply) {
  // drop-after: the server has acted (state changed) but the client never hears back.
  if (req.fault === 'drop-after') {
    reply.hijack();
    req.raw.socket.destroy();
    return;
  }
  if (req.fault === 'escapes') {
    return reply.code(r.status).send(withEscapes(r.raw !== undefined ? JSON.parse(r.raw) : r.body));
  }
  if (r.raw !== undefined) return reply.code(r.status).type('application/json; charset=utf-8').send(r.raw);
  return reply.code(r.status).send(r.body);
}
