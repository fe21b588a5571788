// A printed command is data, not code: the curl of --dry-run and the script of `history show --curl`,
// run by bash with the variables set as their header says, send the bytes mpay itself sent, whatever the
// user's values hold ($VAR of mpay's own names, ${…}, backticks, !, quotes). A capture proxy of the test's
// own, in front of the sandbox, records mpay's requests; then, answering from what it recorded, the
// printed commands' requests, and the two are compared byte for byte.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { cliEnv, customerArgs, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

interface Exchange {
  route: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  status: number;
  answer: string;
}

let sb: Awaited<ReturnType<typeof sandbox>>;
let proxyUrl = '';
let mode: 'forward' | 'replay' = 'forward';
let log: Exchange[] = [];
let recorded: Exchange[] = [];
const proxy = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const route = `${req.method} ${req.url}`;
    const reply = (status: number, answer: string) => {
      log.push({ route, headers: req.headers, body, status, answer });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(answer);
    };
    // In replay, a payment's request is answered as mpay's was (the token is asked of the sandbox).
    const was = mode === 'replay' ? [...recorded].reverse().find((e) => e.route === route) : undefined;
    if (was) return reply(was.status, was.answer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
    ) as Record<string, string>;
    void fetch(`${sb.url}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === 'GET' ? undefined : body,
    }).then(async (r) => reply(r.status, await r.text()));
  });
});

beforeAll(async () => {
  sb = await sandbox();
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await sb.close();
});

// Values the inputs accept (an e-mail's local part takes $ { } ` ! ' = and more): each would run, or
// become one of mpay's own variables, were it read by the shell as anything but text.
const hostile = {
  email: '$MPAY_MERCHANT_KEY@attacker.invalid',
  'receiver-email': "a'b`touch${IFS}pwned`!!$HASH${MPAY_API_KEY}$MPAY_REF@x.invalid",
  'first-name': "Zoë'",
  'last-name': "O'Brien",
};

/** Runs a script with bash in an empty folder, the variables set as the printed header says (the token of mpay's config folder). */
async function bash(
  script: string,
  env: ReturnType<typeof cliEnv>,
  extra: Record<string, string> = {},
): Promise<{ stdout: string; token: string }> {
  const exported = await mpay(['token', '--export'], { env });
  expect(exported.code, exported.stderr).toBe(0);
  const cwd = tempDir();
  const { stdout } = await promisify(execFile)('bash', ['-c', `${exported.stdout}${script}`], {
    cwd,
    env: {
      PATH: process.env.PATH,
      MPAY_MERCHANT_KEY: demoMerchant.merchantKey,
      MPAY_API_KEY: demoMerchant.apiKey,
      MPAY_OTP: demoMerchant.otp,
      ...extra,
    },
  });
  expect(readdirSync(cwd)).toEqual([]);
  return { stdout, token: /'([0-9a-f]+)'/.exec(exported.stdout)![1]! };
}

/** A body as sent, its multipart boundary (each sender picks its own) written B. */
function bytes(e: Exchange): string {
  const boundary = /boundary=(.+)$/.exec(e.headers['content-type'] ?? '')?.[1];
  const text = e.body.toString('latin1');
  return boundary ? text.split(boundary).join('B') : text;
}

it('the curl of --dry-run sends the bytes mpay sends, hostile customer values included', async () => {
  const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: proxyUrl });
  const { 'receiver-email': _r, ...customer } = hostile;
  const args = ['deposit', 'initiate', ...customerArgs({ reference: 'literal-1', gateway: '', ...customer })];
  mode = 'forward';
  log = [];
  const dry = await mpay([...args, '--dry-run', '--json'], { env });
  expect(dry.code, dry.stderr).toBe(0);
  const curl: string = dry.json().curl;
  const sent = await mpay([...args, '--json'], { env });
  expect(sent.code, sent.stderr).toBe(0);
  // (the sandbox refuses this one as a duplicate: its bytes are what counts)
  const { token } = await bash(curl, env);
  const initiates = log.filter((e) => e.route === 'POST /restapi/v1/payments/initiate');
  expect(initiates).toHaveLength(2);
  const [byMpay, byCurl] = initiates as [Exchange, Exchange];
  expect(JSON.parse(byMpay.body.toString()).customer_email).toBe(hostile.email);
  expect(bytes(byCurl)).toBe(bytes(byMpay));
  expect(byCurl.headers.authorization).toBe(`Bearer ${token}`);
});

it('the script of history show --curl sends the bytes mpay sent, step by step, hostile values included', async () => {
  const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: proxyUrl });
  mode = 'forward';
  log = [];
  const done = await mpay(
    ['deposit', ...customerArgs({ reference: 'literal-2', ...hostile }), '--wallet', '--json'],
    { env },
  );
  expect(done.code, done.stderr).toBe(0);
  const byMpay = log.filter((e) => e.route.startsWith('POST /restapi/v1/payments/'));
  expect(byMpay.map((e) => e.route.replace('POST /restapi/v1/payments/', ''))).toEqual([
    'initiate',
    'crypto/wallet/address/update',
    'status/update',
    'processed',
  ]);
  const shown = await mpay(['history', 'show', 'literal-2', '--curl', '--json'], { env });
  expect(shown.code, shown.stderr).toBe(0);
  const script = (shown.json().commands as string[]).join('\n');
  // Answered from what the proxy recorded: the initiate's answer gives back mpay's hash token.
  mode = 'replay';
  recorded = log;
  log = [];
  const { token } = await bash(script, env, { MPAY_REF: 'literal-2' });
  const byScript = log.filter((e) => e.route.startsWith('POST /restapi/v1/payments/'));
  expect(byScript.map((e) => e.route)).toEqual(byMpay.map((e) => e.route));
  for (const [i, e] of byScript.entries()) {
    expect(bytes(e), e.route).toBe(bytes(byMpay[i]!));
    expect(e.headers.authorization).toBe(`Bearer ${token}`);
  }
  expect(byScript.at(-1)!.body.toString()).toContain(JSON.stringify(hostile['receiver-email']));
});

// What the payment flows' checks refuse ($(…), a line break) reaches a printed curl through mpay api: its
// --dry-run's curl, JSON and multipart, sends mpay's own bytes; a URL's brackets and braces are not curl's
// globs (-g), and a field's value that starts with @ is not a file to upload (--form-string).
it.each([
  ['JSON', ['--encoding', 'json']],
  ['multipart', ['--encoding', 'form']],
] as const)(
  'the curl of mpay api --dry-run (%s) sends its bytes, $(…) and a line break included',
  async (_, form) => {
    const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: proxyUrl });
    const note = '$(touch pwned) `touch pwned2` !! ${HOME} $MPAY_API_KEY\nline2 \'q\' "d"\r\\';
    const args = [
      'api',
      'POST',
      '/auth/merchant/token/generate?x=[1-2]{a,b}',
      ...form,
      '--credentials',
      '-f',
      `note=${note}`,
      '-f',
      'file=@/dev/null',
    ];
    mode = 'forward';
    log = [];
    const dry = await mpay([...args, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const curl = dry.stdout.slice(dry.stdout.indexOf('\ncurl ') + 1);
    const sent = await mpay(args, { env });
    expect(sent.code, sent.stderr).toBe(0);
    await bash(curl, env);
    const generates = log.filter((e) => e.route.startsWith('POST /restapi/v1/auth/merchant/token/generate'));
    // (bash() asks for a token too: mpay's, the curl's, and that one)
    const [byMpay, byCurl] = generates.filter((e) => bytes(e).includes('touch pwned'));
    expect(bytes(byMpay!)).toContain(
      form[1] === 'form' ? note.replace(/\r\n|\r|\n/g, '\r\n') : JSON.stringify(note),
    );
    expect(byCurl!.route).toBe(byMpay!.route);
    expect(bytes(byCurl!)).toBe(bytes(byMpay!));
  },
);
