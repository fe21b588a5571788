#!/usr/bin/env node
// The baselines of the sandbox benchmark, in a process of their own: a bare fastify route with a tiny
// JSON body, and bare routes that answer a fixed body of a given size (the same bytes as a sandbox
// endpoint), so that the cost of the bytes on the wire is told apart from the sandbox's own work.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const bodies = new Map();
app.get('/bare', async () => ({ success: true, message: 'ok', data: [] }));
app.put('/static/:name', async (req) => {
  bodies.set(req.params.name, JSON.stringify(req.body));
  return { ok: true, bytes: bodies.get(req.params.name).length };
});
app.get('/static/:name', (req, reply) =>
  reply.type('application/json; charset=utf-8').send(bodies.get(req.params.name)),
);
app.post('/echo/:name', (req, reply) =>
  reply.type('application/json; charset=utf-8').send(bodies.get(req.params.name)),
);
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${app.server.address().port}` })}\n`);
process.on('SIGINT', () => app.close().then(() => process.exit(0)));
