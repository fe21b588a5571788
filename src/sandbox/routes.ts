// The sandbox's routes as tables: the API's (each answered by a rule of state.ts) and the sandbox's own
// (documentation, and inspection and control for tests), put on the app by registerRoutes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { acceptMultipart } from './multipart.js';
import { apiPrefix, sendReply } from './fault-hook.js';
import { requireBearer } from './auth-hook.js';
import { isFault, type Fault, type FaultOptions } from './faults.js';
import { documentationPage, openApiDocument } from './openapi.js';
import type { Reply } from './replies.js';
import type { SandboxState } from './state.js';
import { endpointList, type EndpointId } from '../api/endpoints.js';

type Body = Record<string, unknown>;

const body = (req: FastifyRequest): Body =>
  req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Body) : {};

interface ApiRoute {
  method: 'GET' | 'POST';
  /** below /restapi/v1 */
  path: string;
  /** a bearer token is checked first */
  bearer: boolean;
  answer(state: SandboxState, body: Body): Reply;
}

/** How the sandbox answers each endpoint of the table (api/endpoints.ts), which says where it is. */
const answers: { [I in EndpointId]: ApiRoute['answer'] } = {
  publicCurrencies: (s) => s.view.publicCurrencies(),
  publicCountries: (s) => s.view.publicCountries(),
  merchantCurrencies: (s) => s.merchantCurrencies(),
  publicMerchantCurrencies: (s) => s.merchantCurrencies(),
  tokenGenerate: (s, b) => s.generateToken(b),
  depositInitiate: (s, b) => s.initiate('deposit', b),
  depositProcessed: (s, b) => s.processed('deposit', b),
  statusUpdate: (s, b) => s.updateStatus(b),
  walletUpdate: (s, b) => s.updateWallet(b),
  withdrawInitiate: (s, b) => s.initiate('withdraw', b),
  withdrawProcessed: (s, b) => s.processed('withdraw', b),
};

export const apiRoutes: readonly ApiRoute[] = endpointList.map((e) => ({
  method: e.method,
  path: `/${e.path}`,
  bearer: e.bearer,
  answer: answers[e.id],
}));

interface OwnRoute {
  method: 'GET' | 'POST';
  path: string;
  /** `opts` is the server's own: POST /_sandbox/faults changes it for the requests that follow */
  handle(req: FastifyRequest, reply: FastifyReply, state: SandboxState, opts: FaultOptions): unknown;
}

const origin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

const ownRoutes: readonly OwnRoute[] = [
  {
    method: 'GET',
    path: '/restapi/documentation/openapi.json',
    handle: (req) => openApiDocument(origin(req)),
  },
  {
    method: 'GET',
    path: '/restapi/documentation',
    handle: (req, reply) => reply.type('text/html').send(documentationPage(openApiDocument(origin(req)))),
  },
  // Sandbox-only routes, outside /restapi/v1: inspection and token revocation for tests.
  { method: 'GET', path: '/_sandbox/health', handle: async () => ({ ok: true }) },
  { method: 'GET', path: '/_sandbox/transactions', handle: async (_req, _reply, state) => state.list() },
  // What the sandbox holds and its memory, after a full collection when the process runs with --expose-gc
  // (for npm run bench: the memory a held transaction costs).
  {
    method: 'GET',
    path: '/_sandbox/memory',
    handle: async (_req, _reply, state) => {
      (globalThis as { gc?: () => void }).gc?.();
      return { transactions: state.size(), ...process.memoryUsage() };
    },
  },
  // How many requests each API route received, by "METHOD /path" below /restapi/v1.
  { method: 'GET', path: '/_sandbox/requests', handle: async (_req, _reply, state) => state.requestCounts() },
  {
    method: 'POST',
    path: '/_sandbox/revoke-tokens',
    handle: async (_req, _reply, state) => {
      const revoked = state.revokeTokens();
      await state.committed();
      return { revoked };
    },
  },
  // Changes the start-up faults while running, e.g. {"rate": 0} to let a stopped flow resume.
  {
    method: 'POST',
    path: '/_sandbox/faults',
    handle: async (req, _reply, _state, opts) => setFaults(opts, body(req)),
  },
];

function setFaults(opts: FaultOptions, b: Body) {
  if (Array.isArray(b.faults))
    opts.faults = b.faults.filter((f): f is Fault => typeof f === 'string' && isFault(f));
  if (typeof b.rate === 'number') opts.rate = b.rate;
  if (Array.isArray(b.faultPaths)) opts.faultPaths = b.faultPaths.map(String);
  return { faults: opts.faults ?? [], rate: opts.rate ?? 0, faultPaths: opts.faultPaths ?? null };
}

export async function registerRoutes(
  app: FastifyInstance,
  state: SandboxState,
  opts: FaultOptions,
): Promise<void> {
  const bearer = requireBearer(state);
  const add = (scope: FastifyInstance, r: ApiRoute) =>
    scope.route({
      method: r.method,
      url: `${apiPrefix}${r.path}`,
      // before the body is read: a request without a valid token is a 401 whatever its body (bad JSON too)
      ...(r.bearer && { onRequest: bearer }),
      handler: async (req, reply) => {
        const answer = r.answer(state, body(req));
        // written once its change is committed; a failed commit is the error handler's 500 (server.ts)
        await state.committed();
        return sendReply(req, reply, answer);
      },
    });
  for (const r of apiRoutes) if (r.method === 'GET') add(app, r);
  // The POST routes take JSON, urlencoded and multipart bodies.
  await app.register(async (api) => {
    await api.register(formbody);
    acceptMultipart(api);
    for (const r of apiRoutes) if (r.method === 'POST') add(api, r);
  });
  for (const r of ownRoutes)
    app.route({ method: r.method, url: r.path, handler: (req, reply) => r.handle(req, reply, state, opts) });
}
