// A --dry-run curl, pasted into bash, sends what mpay itself sends, field for field, for values that
// curl or the shell would otherwise read as something else: `@file` and `<file` (curl's -F and --data
// read those files and upload them), quotes, `$()`, backticks, newlines and unicode. A capture server of
// the test's own records both requests; nothing is read from a local file.
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

interface Captured {
  contentType: string;
  body: Buffer;
}
let captured: Captured[] = [];
let url = '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    captured.push({ contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"success":true,"message":"ok","data":{"token":"t"}}');
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The fields of a captured body, multipart or JSON, as strings. */
async function fields(c: Captured): Promise<Record<string, string>> {
  if (c.contentType.startsWith('multipart/form-data')) {
    const form = await new Response(new Uint8Array(c.body), {
      headers: { 'content-type': c.contentType },
    }).formData();
    return Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
  }
  return JSON.parse(c.body.toString('utf8')) as Record<string, string>;
}

const dir = tempDir();
const secretFile = join(dir, 'secret.txt');
writeFileSync(secretFile, 'THE CONTENTS OF A LOCAL FILE');
const corpus = [
  `@${secretFile}`,
  `<${secretFile}`,
  `@${secretFile};type=text/plain`,
  `it's "quoted"`,
  '$(touch pwned) `touch pwned2` $HOME',
  'line one\nline two',
  'zoë ü € 日本',
  '=starts with equals; a,b',
  'bang!x hi !! !$',
  // mpay's own variable names, in a user's value: text like any other
  '$MPAY_MERCHANT_KEY ${MPAY_API_KEY} "$MPAY_TOKEN" $HASH $MPAY_REF',
];

for (const encoding of ['--form', '--json'] as const)
  it(`${encoding}: each printed curl sends what mpay sends, hostile values included`, async () => {
    const env = cliEnv(undefined, tempDir(), { MPAY_BASE_URL: url });
    // --credentials: the body holds secrets, so the curl's quoting is the one that expands $MPAY_ variables.
    // (`mpay api`'s --json is the output flag: the body's encoding is --encoding json.)
    const args = [
      'api',
      'POST',
      '/auth/merchant/token/generate',
      '--encoding',
      encoding.slice(2),
      '--credentials',
    ];
    for (const [i, v] of corpus.entries()) args.push('-f', `f${i}=${v}`);
    captured = [];
    const sent = await mpay(args, { env });
    expect(sent.code, sent.stderr).toBe(0);
    const dry = await mpay([...args, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const curl = dry.stdout.slice(dry.stdout.indexOf('\ncurl ') + 1).replace(/\n$/, '');
    expect(curl).toMatch(encoding === '--form' ? /--form-string / : /--data-raw /);
    const cwd = tempDir();
    // Not execFileSync: the capture server answers from this process.
    // Pasted into an interactive bash, where history expansion would read a ! in double quotes.
    // (Not spawnSync: the capture server answers from this process.)
    const stderr = await new Promise<string>((resolve) => {
      const bash = spawn('bash', ['--norc', '--noprofile', '-i'], {
        cwd,
        env: { ...process.env, ...env, HOME: cwd, HISTFILE: '/dev/null' },
      });
      let err = '';
      bash.stderr.on('data', (d) => (err += d));
      bash.stdout.resume();
      bash.on('close', () => resolve(err));
      bash.stdin.end(`${curl}\nexit\n`);
    });
    expect(stderr).not.toMatch(/event not found/);
    expect(captured).toHaveLength(2);
    const [byMpay, byCurl] = await Promise.all(captured.map(fields));
    expect(byCurl).toEqual(byMpay);
    // Form-data writes a line break as CRLF (the WHATWG encoding, as a browser sends it); JSON keeps it.
    const wire = (v: string) => (encoding === '--form' ? v.replace(/\n/g, '\r\n') : v);
    const { merchant_key: _mk, site_id: _site, api_key: _ak, ...given } = byMpay!;
    expect(given).toEqual(Object.fromEntries(corpus.map((v, i) => [`f${i}`, wire(v)])));
    expect(curl).toContain('$MPAY_MERCHANT_KEY');
    expect(JSON.stringify(byCurl)).not.toContain('THE CONTENTS OF A LOCAL FILE');
    expect(execFileSync('ls', ['-A', cwd]).toString()).toBe('');
  });
