// The bearer check of the protected routes, as the route's onRequest hook: it runs before the body is read
// (a request without a valid token is a 401 even when its body is not JSON, authentication first, as the
// API's framework does), and after the server's own onRequest hook, the fault hook, has had its say, so a
// canned fault answers even a request without a token.
import type { onRequestHookHandler } from 'fastify';
import { messages } from './replies.js';
import type { SandboxState } from './state.js';

export function requireBearer(state: SandboxState): onRequestHookHandler {
  return (req, reply, done) => {
    if (state.isAuthorized(req.headers.authorization)) return done();
    reply.code(401).send({ status: false, message: messages.unauthenticated });
  };
}
