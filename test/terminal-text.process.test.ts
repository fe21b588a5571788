// What a customer or a server wrote never drives the terminal mpay prints on: bin/run.js in a real
// pseudo-terminal (tmux), every byte it writes recorded as the terminal receives it. A bidi override or an
// escape sequence in a customer's name or a server's answer reaches the terminal made visible (io.out,
// io.write: the IO's one rule), and a printed curl holds it as $'\xHH' bytes, so that run by bash it still
// sends the name byte for byte.
import { execFile } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, run, sandbox, tempDir, waitUntil } from './helpers.js';
import { Tmux } from './tmux.js';
import { without } from './tools.js';
import { bin } from './helpers.js';
import { mpay } from './in-process.js';

// A right-to-left override, a window-title escape, a screen clear and a C1 CSI: each acts on a terminal.
const hostileName = 'Ev\u202eli\u001b]0;pwned\u0007\u001b[2J\u009b31m';
// eslint-disable-next-line no-control-regex
const raw = /[\u202e\u001b\u0007\u009b]/;

/** Runs `args` in a pseudo-terminal; returns every byte mpay wrote to it, and the screen. */
async function onTerminal(name: string, args: string[], env: Record<string, string>) {
  const t = new Tmux(name);
  const file = join(tempDir(), 'terminal.bytes');
  try {
    // The command waits for a line, so that the recording starts before mpay writes anything.
    t.start(args, env, ['sh', '-c', 'read go && exec "$@"', 'sh', process.execPath, bin]);
    t.record(file);
    t.answer('');
    const screen = await t.waitFor(/EXIT=\d+/, 60_000);
    await waitUntil(
      'the recording of the run',
      () => existsSync(file) && /EXIT=/.test(readFileSync(file, 'latin1')),
    );
    // (the recording is the terminal's input: its line ends are \r\n)
    const bytes = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
    return { screen, bytes: bytes.slice(0, bytes.indexOf('EXIT=')) };
  } finally {
    t.kill();
  }
}

// its tests at once, each on a terminal and in a config folder of its own
describe.skipIf(without('tmux', 'bash'))('text from outside on a terminal', { concurrent: true }, () => {
  let sb: Awaited<ReturnType<typeof sandbox>>;
  beforeAll(async () => {
    sb = await sandbox();
  });
  afterAll(() => sb.close());

  it('history show --curl shows a bidi override and escapes visibly, and the curl still sends them', async () => {
    const env = cliEnv(sb, tempDir());
    // mpay api takes any value; the record it journals keeps the customer's name as sent (in this
    // process: the terminal below is the point, not this run)
    const made = await mpay(
      [
        'api',
        'POST',
        '/payments/initiate',
        '--credentials',
        ...['-f', `customer_first_name=${hostileName}`, '-f', 'customer_last_name=X'],
        ...['-f', 'customer_email=a@b.co', '-f', 'customer_phone=+233241234567', '-f', 'amount=10'],
        ...['-f', 'currency_code=GHS', '-f', 'country_code=GH', '-f', 'customer_transaction_id=bidi-1'],
      ],
      { env },
    );
    expect(made.code, made.stderr).toBe(0);
    const { bytes, screen } = await onTerminal('curl', ['history', 'show', 'bidi-1', '--curl'], env);
    expect(screen).toMatch(/EXIT=0/);
    expect(bytes).toContain('customer_first_name');
    expect(bytes).not.toMatch(raw);
    expect(bytes).toContain(`"Ev'$'\\xe2\\x80\\xae''li`);
    // The initiate's line, as the terminal showed it, run by bash against a capture server.
    const line = bytes.split('\n').find((l) => l.includes('/payments/initiate'))!;
    const bodies: Buffer[] = [];
    const capture = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"has_token":"h"}}');
      });
    });
    await new Promise<void>((r) => capture.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(capture.address() as { port: number }).port}`;
      await promisify(execFile)('bash', ['-c', line.split(sb.url).join(url)], {
        env: {
          PATH: process.env.PATH,
          MPAY_TOKEN: 't',
          MPAY_MERCHANT_KEY: 'k',
          MPAY_API_KEY: 'a',
          MPAY_REF: 'r',
        },
      });
    } finally {
      await new Promise((r) => capture.close(r));
    }
    expect(bodies).toHaveLength(1);
    expect(JSON.parse(bodies[0]!.toString('utf8')).customer_first_name).toBe(hostileName);
    expect(bodies[0]!.toString('utf8')).toContain('"Ev\u202eli\\u001b]0;pwned\\u0007\\u001b[2J\u009b31m"');
  });

  it("mpay api prints a server's answer and headers with its bidi override and escapes made visible", async () => {
    const server = createServer((req, res) => {
      req.resume();
      // (a header's value is Latin-1: a C1 CSI is the worst it can carry)
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-note': 'a\u009b31mb' })
        .end(JSON.stringify({ name: hostileName }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: url });
      const { bytes, screen } = await onTerminal('api', ['api', 'GET', '/public/countries', '-i'], env);
      expect(screen).toMatch(/EXIT=0/);
      expect(bytes).toContain('"name"');
      expect(bytes).not.toMatch(raw);
      expect(bytes).toContain('\\u202e');
      expect(bytes).toContain('x-note: a\\x9b31mb');
      // In a pipe, the answer is what the server sent, byte for byte.
      const piped = await run(['api', 'GET', '/public/countries'], { env });
      expect(piped.stdout).toBe(JSON.stringify({ name: hostileName }));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
