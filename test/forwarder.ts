// A forwarder on loopback in front of a server (a sandbox): every request goes through as it came and its
// answer comes back as it was, and the forwarder keeps what it saw (method, path, body), so that a test
// counts what reached the server by its body (a row's reference), not only by its route. `drop` names
// the requests whose connection it closes without an answer (a network failure at that call); `answer`
// rewrites an answer's text (another server's words: a message naming what the request sent).
import { createServer } from 'node:http';

export interface Seen {
  route: string;
  body: string;
}

export async function forwarder(
  target: string,
  opts: {
    drop?: (route: string) => boolean;
    /** the text of the answer to a request, made from the server's */
    answer?: (route: string, request: string, text: string) => string;
  } = {},
): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const route = `${req.method} ${(req.url ?? '').split('?')[0]}`;
      seen.push({ route, body: body.toString('utf8') });
      if (opts.drop?.(route)) return req.socket.destroy();
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
      ) as Record<string, string>;
      fetch(target + req.url, { method: req.method, headers, body: body.length ? body : undefined }).then(
        async (a) => {
          const got = Buffer.from(await a.arrayBuffer());
          const out = opts.answer
            ? Buffer.from(opts.answer(route, body.toString('utf8'), got.toString('utf8')))
            : got;
          const hop = ['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length'];
          res.writeHead(a.status, Object.fromEntries([...a.headers].filter(([k]) => !hop.includes(k))));
          res.end(out);
        },
        // the server closed it without an answer (or went away): so does the forwarder
        () => req.socket.destroy(),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
