// A value a server hands out is data in what mpay says, not text to act on: a hostile server's hash token
// holding `$(id)`, a line break and an escape sequence is shown in the hint of a step whose answer was lost
// as one shell word, on the hint's own line, with its control bytes visible; pasted into bash, that word
// is the server's bytes, and runs nothing. A forwarder in front of the sandbox gives the initiate's answer
// that hash token and drops the connection of the next money request once it was sent.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

const hostile = '$(id)\n\u001b[31mred`id`';

let sb: Awaited<ReturnType<typeof sandbox>>;
let proxy: { url: string; dropped: () => number; close: () => Promise<void> };
beforeAll(async () => {
  sb = await sandbox();
  let dropped = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      // the money step after initiate (it names the hostile hash token): its answer never comes back
      if (req.method === 'POST' && /\/payments\/(?!initiate)/.test(req.url ?? '')) {
        dropped++;
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
      const r = await fetch(`${sb.url}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' ? undefined : body,
      });
      let text = await r.text();
      if (req.url?.endsWith('/payments/initiate') && r.status < 300) {
        const json = JSON.parse(text);
        json.data.has_token = hostile;
        text = JSON.stringify(json);
      }
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    dropped: () => dropped,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
});
afterAll(async () => {
  await proxy.close();
  await sb.close();
});

it("a hostile hash token in a hint is one inert shell word, on the hint's line, its control bytes shown", async () => {
  const r = await mpay(['deposit', ...customerArgs({ reference: 'hostile-1' })], {
    env: cliEnv(undefined, tempDir(), { MPAY_BASE_URL: proxy.url }),
  });
  expect(proxy.dropped(), r.stderr).toBe(1);
  expect(r.code, r.stderr).not.toBe(0);
  const hint = r.stderr.split('\n').find((l) => l.startsWith('hint: '));
  expect(hint, r.stderr).toMatch(/Nothing was re-sent/);
  // on the hint's line: no line break and no escape byte from the server's value
  expect(r.stderr).not.toContain('\u001b');
  expect(r.stderr).not.toMatch(/^(\\x1b)?\[31mred/m);
  const word = /, hash token (\S+)\)\. Nothing was re-sent/.exec(hint!)?.[1];
  expect(word, hint).toBeDefined();
  expect(word).toContain("'$(id)'");
  expect(word).toContain("$'\\x0a'");
  expect(word).toContain("$'\\x1b'");
  // pasted into bash, the word is the server's bytes, and nothing in it ran
  const echoed = execFileSync('bash', ['-c', `printf %s ${word}`]).toString();
  expect(echoed).toBe(hostile);
  // the flow's own line naming the hash token shows it the same way
  expect(r.stderr).toContain(`hash token ${word}`);
});
