// The bearer check of the protected routes, as a preHandler: it runs after the body is parsed and the
// fault hook has had its say, so a canned fault answers even a request without a token.
import type { preHandlerHookHandler } from 'fastify';
import { messages } from './replies.js';
import type { SandboxState } from './state.js';

export function requireBearer(state: SandboxState): preHandlerHookHandler {
  return (req, reply, done) => {
    if (state.isAuthorized(req.headers.authorization)) return done();
    reply.code(401).send({ status: false, message: messages.unauthenticated });
  };
}
