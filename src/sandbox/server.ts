// The sandbox's HTTP face (fastify 5): routes, body encodings, bearer checks and fault injection.
// The rules themselves live in state.ts.
import Fastify, { type FastifyInstance } from 'fastify';
import { SandboxState } from './state.js';
import { messages, shapeA, validationFailure } from './replies.js';
import type { FaultOptions } from './faults.js';
import { apiRequestHook } from './fault-hook.js';
import { registerRoutes } from './routes.js';
import { RateLimiter, seededRandom } from './pacing.js';
import { loadSeed, type Seed, type SeedName } from './seed.js';

export interface SandboxOptions extends FaultOptions {
  /** the SQLite database that keeps the state across restarts (store.ts); in memory without */
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
  /** a log line a request: method, path, status, time */
  logRequests?: boolean;
  /** at most `limit` API requests a window of `windowMs`; beyond, 429 with Retry-After */
  rateLimit?: { limit: number; windowMs: number };
  /** told of each API request as it arrives, by route ("429 POST /x" when refused for the rate) */
  onArrival?: (route: string, at: number) => void;
}

export interface RunningSandbox {
  url: string;
  app: FastifyInstance;
  state: SandboxState;
  close(): Promise<void>;
}

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
  const state = new SandboxState({
    dataFile: opts.dataFile,
    log,
    seed: opts.catalogue ?? (await loadSeed(opts.seed ?? 'demo')),
    onArrival: opts.onArrival,
  });
  const app = (
    opts.tls
      ? Fastify({ logger: false, forceCloseConnections: true, https: opts.tls })
      : Fastify({ logger: false, forceCloseConnections: true })
  ) as FastifyInstance;
  app.addHook('onRequest', apiRequestHook(state, opts, { latencyMs: opts.latencyMs ?? 0, limiter }, log));
  if (opts.logRequests)
    app.addHook('onResponse', async (req, reply) => {
      // the path without its query string, which could carry what a log should not
      log(`${req.method} ${req.url.split('?')[0]} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`);
    });

  // A body fastify cannot parse is the client's fault: answer in the API's own validation shape.
  // An unexpected error (a write the disk refused: full, read-only) is logged and answered as the API
  // answers one: 500, shape A. Its change was not committed (store.ts), so nothing answered before is lost.
  app.setErrorHandler((err: { statusCode?: number; message: string }, req, reply) => {
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const r = validationFailure({ body: [err.message] });
      return reply.code(r.status).send(r.body);
    }
    log(`${req.method} ${req.url.split('?')[0]}: answered 500: ${err.message}`);
    const r = shapeA(500, messages.serverError);
    return reply.code(r.status).send(r.body);
  });
  // An unknown route answers as a web framework does (Laravel's shape), not in the API's shape A: shape A's
  // 404 means "transaction not initiated", and a client must be able to tell a wrong base URL from it.
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ message: `The route ${req.url.replace(/^\//, '')} could not be found.` }),
  );
  try {
    await registerRoutes(app, state, opts);
  } catch (err) {
    state.close();
    throw err;
  }
  return { app, state };
}

export async function startSandbox(
  opts: SandboxOptions & { port?: number; host?: string } = {},
): Promise<RunningSandbox> {
  const { app, state } = await buildSandbox(opts);
  const host = opts.host ?? '127.0.0.1';
  try {
    await app.listen({ port: opts.port ?? 4010, host });
  } catch (err) {
    state.close();
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${shownHost}:${port}`,
    app,
    state,
    async close() {
      await app.close();
      state.close();
    },
  };
}
