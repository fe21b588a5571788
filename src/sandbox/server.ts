// The sandbox's HTTP face (fastify 5): routes, body encodings, bearer checks and fault injection.
// The rules themselves live in state.ts.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { acceptMultipart } from './multipart.js';
import { SandboxState } from './state.js';
import { messages, shapeA, validationFailure, type Reply } from './replies.js';
import {
  delayHeader,
  faultHeader,
  faultReply,
  isFault,
  pickFault,
  withEscapes,
  type Fault,
  type FaultOptions,
} from './faults.js';
import { documentationPage, openApiDocument } from './openapi.js';
import { RateLimiter, seededRandom } from './pacing.js';
import { loadSeed, type Seed, type SeedName } from './seed.js';

export interface SandboxOptions extends FaultOptions {
  dataFile?: string;
  /** the data set to serve: demo (default) or alt, whose records use other spellings and ids */
  seed?: SeedName;
  /** a data set of the caller's: a merchant's catalogue (catalogue.ts), served instead of `seed` */
  catalogue?: Seed;
  /** serve HTTPS with this PEM key and certificate (for tests of TLS and private CAs) */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** where log lines (one-time codes, faults) go; silent when absent */
  log?: (line: string) => void;
  /** every API request waits this long before it is handled (ms) */
  latencyMs?: number;
  /** at most `limit` API requests a window of `windowMs`; beyond, 429 with Retry-After */
  rateLimit?: { limit: number; windowMs: number };
}

export interface RunningSandbox {
  url: string;
  app: FastifyInstance;
  state: SandboxState;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    fault?: Fault;
  }
}

const prefix = '/restapi/v1';

export async function buildSandbox(
  opts: SandboxOptions = {},
): Promise<{ app: FastifyInstance; state: SandboxState }> {
  const log = opts.log ?? (() => {});
  if (!opts.random) {
    opts.faultSeed ??= Math.floor(Math.random() * 2 ** 31);
    opts.random = seededRandom(opts.faultSeed);
    if (opts.faults?.length && opts.rate)
      log(`faults drawn with seed ${opts.faultSeed} (--fault-seed ${opts.faultSeed} draws them again)`);
  }
  const limiter = opts.rateLimit && new RateLimiter(opts.rateLimit.limit, opts.rateLimit.windowMs);
  const latency = opts.latencyMs ?? 0;
  const state = new SandboxState({
    dataFile: opts.dataFile,
    log,
    seed: opts.catalogue ?? (await loadSeed(opts.seed ?? 'demo')),
  });
  const app = (
    opts.tls
      ? Fastify({ logger: false, forceCloseConnections: true, https: opts.tls })
      : Fastify({ logger: false, forceCloseConnections: true })
  ) as FastifyInstance;
  // Hooks in callback style: the common case (no fault, a valid bearer) costs no promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    if (!req.url.startsWith(prefix)) return done();
    const route = `${req.method} ${req.url.slice(prefix.length).split('?')[0]}`;
    state.count(route);
    if (latency > 0 || limiter) {
      const go = () => {
        const wait = limiter?.take();
        if (wait === undefined) return faulted(req, reply, done);
        state.count(`429 ${route}`);
        reply
          .code(429)
          .header('retry-after', String(wait))
          .send({ success: false, message: messages.tooManyRequests });
      };
      if (latency > 0) setTimeout(go, latency);
      else go();
      return;
    }
    faulted(req, reply, done);
  });
  const faulted = (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
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
  };

  // A body fastify cannot parse is the client's fault: answer in the API's own validation shape.
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const r = validationFailure({ body: [err.message] });
      return reply.code(r.status).send(r.body);
    }
    const r = shapeA(500, messages.serverError);
    return reply.code(r.status).send(r.body);
  });
  // An unknown route answers as a web framework does (Laravel's shape), not in the API's shape A: shape A's
  // 404 means "transaction not initiated", and a client must be able to tell a wrong base URL from it.
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ message: `The route ${req.url.replace(/^\//, '')} could not be found.` }),
  );

  const send = (req: FastifyRequest, reply: FastifyReply, r: Reply) => {
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
  };
  const requireBearer = (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (state.isAuthorized(req.headers.authorization)) return done();
    reply.code(401).send({ status: false, message: messages.unauthenticated });
  };
  const body = (req: FastifyRequest): Record<string, unknown> =>
    req.body && typeof req.body === 'object' && !Array.isArray(req.body)
      ? (req.body as Record<string, unknown>)
      : {};

  app.get(`${prefix}/public/currencies`, (req, reply) => send(req, reply, state.publicCurrencies()));
  app.get(`${prefix}/public/countries`, (req, reply) => send(req, reply, state.publicCountries()));
  const protectedRoute = { preHandler: requireBearer };
  app.get(`${prefix}/merchant/currencies`, protectedRoute, (req, reply) =>
    send(req, reply, state.merchantCurrencies()),
  );
  // The spec's initiate parameter notes name this path for the same list.
  app.get(`${prefix}/public/merchant/currencies`, protectedRoute, (req, reply) =>
    send(req, reply, state.merchantCurrencies()),
  );
  // The POST routes take JSON, urlencoded and multipart bodies.
  await app.register(async (api) => {
    await api.register(formbody);
    acceptMultipart(api);
    api.post(`${prefix}/auth/merchant/token/generate`, (req, reply) =>
      send(req, reply, state.generateToken(body(req))),
    );
    // The money-moving POSTs; a token for protected routes is checked first.
    api.post(`${prefix}/payments/initiate`, protectedRoute, (req, reply) =>
      send(req, reply, state.initiate('deposit', body(req))),
    );
    api.post(`${prefix}/payments/processed`, protectedRoute, (req, reply) =>
      send(req, reply, state.depositProcessed(body(req))),
    );
    api.post(`${prefix}/payments/status/update`, protectedRoute, (req, reply) =>
      send(req, reply, state.updateStatus(body(req))),
    );
    api.post(`${prefix}/payments/crypto/wallet/address/update`, protectedRoute, (req, reply) =>
      send(req, reply, state.updateWallet(body(req))),
    );
    api.post(`${prefix}/payments/withdraw/initiate`, protectedRoute, (req, reply) =>
      send(req, reply, state.initiate('withdraw', body(req))),
    );
    api.post(`${prefix}/payments/withdraw/processed`, protectedRoute, (req, reply) =>
      send(req, reply, state.withdrawProcessed(body(req))),
    );
  });

  app.get('/restapi/documentation/openapi.json', (req) => openApiDocument(`${req.protocol}://${req.host}`));
  app.get('/restapi/documentation', (req, reply) =>
    reply.type('text/html').send(documentationPage(openApiDocument(`${req.protocol}://${req.host}`))),
  );

  // Sandbox-only routes, outside /restapi/v1: inspection and token revocation for tests.
  app.get('/_sandbox/health', async () => ({ ok: true }));
  app.get('/_sandbox/transactions', async () => state.list());
  // How many requests each API route received, e.g. {"POST /payments/initiate": 1}.
  app.get('/_sandbox/requests', async () => state.requestCounts());
  app.post('/_sandbox/revoke-tokens', async () => ({ revoked: state.revokeTokens() }));
  // Changes the start-up faults while running, e.g. {"rate": 0} to let a stopped flow resume.
  app.post('/_sandbox/faults', async (req) => {
    const b = body(req);
    if (Array.isArray(b.faults))
      opts.faults = b.faults.filter((f): f is Fault => typeof f === 'string' && isFault(f));
    if (typeof b.rate === 'number') opts.rate = b.rate;
    if (Array.isArray(b.faultPaths)) opts.faultPaths = b.faultPaths.map(String);
    return { faults: opts.faults ?? [], rate: opts.rate ?? 0, faultPaths: opts.faultPaths ?? null };
  });

  return { app, state };
}

export async function startSandbox(
  opts: SandboxOptions & { port?: number; host?: string } = {},
): Promise<RunningSandbox> {
  const { app, state } = await buildSandbox(opts);
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ port: opts.port ?? 4010, host });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${shownHost}:${port}`,
    app,
    state,
    async close() {
      await app.close();
      await state.flush();
    },
  };
}
