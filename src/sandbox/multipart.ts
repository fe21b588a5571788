// multipart/form-data bodies for the sandbox's POST routes, as a content-type parser on busboy (the
// parser @fastify/multipart itself uses). @fastify/multipart adds three hooks to every request of its
// scope, JSON ones included; the spec's forms carry only text fields, so a parser of fields is all the
// sandbox needs, and JSON requests pay nothing for it.
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { FastifyInstance } from 'fastify';

export function acceptMultipart(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    const fields: Record<string, string> = {};
    let bb: BusboyInstance;
    try {
      bb = new Busboy({
        headers: req.headers as BusboyHeaders,
        limits: { fields: 100, fieldSize: 64 * 1024, files: 0 },
      });
    } catch (err) {
      return done(Object.assign(err as Error, { statusCode: 400 }), undefined);
    }
    bb.on('field', (name: string, value: string) => {
      fields[name] = value;
    });
    bb.on('file', (_name: string, stream: NodeJS.ReadableStream) => stream.resume());
    bb.on('error', (err: Error) => done(Object.assign(err, { statusCode: 400 }), undefined));
    bb.on('finish', () => done(null, fields));
    payload.pipe(bb);
  });
}
