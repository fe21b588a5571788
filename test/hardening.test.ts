// Hardening against a hostile or misconfigured network and another local user: plain http never through
// a remote proxy, redirects held to the base URL's rule and stripped of added headers on another host,
// no `user:pass@` or `*.localhost` base URL, answers read up to a bound, nothing a server sends can drive
// the terminal, and files that may hold customers' data written 0600 and never through a link. Only
// loopback addresses are contacted: a "remote" proxy or target is a name under .invalid, which resolves
// nowhere, so a correct mpay refuses or bypasses it before any connection.
import { chmodSync, chownSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  cliEnv,
  customerArgs,
  isRoot,
  loopbackServer,
  nobody,
  requestCount,
  sandbox,
  tempDir,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('a plain-http base URL bypasses a proxy that is not on loopback', async () => {
  const r = await mpay(['countries', '--json'], {
    env: cliEnv(sb, tempDir(), {
      HTTP_PROXY: 'http://proxy.invalid:3128',
      http_proxy: 'http://proxy.invalid:3128',
    }),
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.json().length).toBeGreaterThan(0);
});

it('a redirect of a GET: to another loopback host without the added headers; to a remote plain-http host refused', async () => {
  const seen: Record<string, string | undefined>[] = [];
  const target = await loopbackServer((req, res) => {
    seen.push({ secret: req.headers['x-api-secret'] as string | undefined, auth: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"success":true,"message":"ok","data":[]}');
  }, '127.0.0.2');
  const redirector = await loopbackServer((req, res) => {
    const to = req.url!.includes('remote') ? 'http://api.invalid/restapi/v1/x' : `${target.url}${req.url}`;
    res.writeHead(302, { location: to });
    res.end();
  });
  try {
    const env = cliEnv(redirector, tempDir());
    const ok = await mpay(['api', 'GET', '/public/countries', '-H', 'X-Api-Secret: s3cr3t-value'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(seen).toEqual([{ secret: undefined, auth: undefined }]);
    const remote = await mpay(['countries', '--json'], {
      env: cliEnv({ url: `${redirector.url}/remote` }, tempDir()),
    });
    expect(remote.code, remote.stderr).toBe(7);
    expect(remote.json().error.message).toMatch(
      /refused a redirect from http:\/\/127\.0\.0\.1:\d+ to plain http:\/\/api\.invalid/,
    );
  } finally {
    await redirector.close();
    await target.close();
  }
});

it('a base URL with user:pass@, or on *.localhost, is refused before anything is sent', async () => {
  const withUser = sb.url.replace('http://', 'http://alice:pa55word@');
  for (const argv of [
    ['countries', '--base-url', withUser],
    ['whoami', '--base-url', withUser],
    ['config', 'set', 'sandbox.base_url', withUser],
  ]) {
    const r = await mpay([...argv, '--json'], { env: cliEnv(undefined, tempDir()) });
    expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
    expect(r.json().error.message).toBe('A base URL may not hold a user name or password (user:pass@)');
    expect(r.stdout + r.stderr).not.toContain('pa55word');
  }
  const local = await mpay(['countries', '--base-url', 'http://api.localhost:4010', '--json'], {
    env: cliEnv(undefined, tempDir()),
  });
  expect(local.code).toBe(2);
  expect(local.json().error.message).toMatch(/^Refusing plain http:\/\/ to api\.localhost/);
});

it('an answer larger than the bound is cut off and reported as server, with its size; --max-size reads more', async () => {
  const chunk = Buffer.alloc(1 << 20, 0x20);
  const big = await loopbackServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"success":true,"message":"ok","data":[');
    let sent = 0;
    const more = () => {
      while (sent < 12) {
        sent++;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end(']}');
    };
    more();
  });
  try {
    const env = cliEnv(big, tempDir());
    const r = await mpay(['countries', '--json'], { env });
    expect(r.code, r.stderr).toBe(7);
    expect(r.json().error).toMatchObject({ kind: 'server' });
    expect(r.json().error.message).toMatch(
      /^The answer to GET \/public\/countries is larger than 8 MB \(\d+ bytes read, then mpay stopped\)/,
    );
    const more = await mpay(['api', 'GET', '/public/countries', '--max-size', '16'], { env });
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout.length).toBeGreaterThan(12 * (1 << 20));
  } finally {
    await big.close();
  }
});

it('on a terminal, C1 controls and bidi overrides from a server are shown as text, never sent raw', async () => {
  const server = await loopbackServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'x-note': 'a\u009bb' });
    res.end('before\u009b31mred\u202eevil\u2066x\u2069 after');
  });
  try {
    const r = await mpay(['api', 'GET', '/public/countries', '--include'], {
      env: cliEnv(server, tempDir()),
      tty: true,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(r.stdout).toContain('before\\x9b31mred\\u202eevil\\u2066x\\u2069 after');
    expect(r.stdout).toContain('x-note: a\\x9bb');
  } finally {
    await server.close();
  }
});

it('a link planted where --trace or a batch --out writes is refused before anything is sent; the file it points to is untouched', async () => {
  const dir = tempDir();
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'keep me');
  const traceLink = join(dir, 'run.har');
  const outLink = join(dir, 'results.csv');
  symlinkSync(victim, traceLink);
  symlinkSync(victim, outLink);
  const cfg = tempDir();
  const env = cliEnv(sb, cfg);
  const before = (await (await fetch(`${sb.url}/_sandbox/requests`)).json()) as Record<string, number>;
  const trace = await mpay(
    ['deposit', ...customerArgs({ reference: 'link-1' }), '--trace', traceLink, '--json'],
    {
      env,
    },
  );
  expect(trace.code, trace.stderr).toBe(2);
  expect(trace.json().error.message).toBe(`Refusing to write the trace through the link ${traceLink}`);
  const rows = join(dir, 'rows.csv');
  writeFileSync(
    rows,
    'currency,country,amount,first_name,phone,email,gateway\nGHS,GH,10,Linked,+233201234000,l@example.org,1\n',
  );
  const batch = await mpay(['deposit', 'batch', rows, '--out', outLink], { env });
  expect(batch.code, batch.stderr).toBe(2);
  expect(batch.stderr).toContain(`Refusing to write the results through the link ${outLink}`);
  expect(readFileSync(victim, 'utf8')).toBe('keep me');
  const after = (await (await fetch(`${sb.url}/_sandbox/requests`)).json()) as Record<string, number>;
  expect(after['POST /payments/initiate'] ?? 0).toBe(before['POST /payments/initiate'] ?? 0);
});

it.skipIf(!isRoot)(
  'a config folder or file another user owns is refused before anything is read or sent',
  async () => {
    const cfg = tempDir();
    chmodSync(cfg, 0o777);
    chownSync(cfg, nobody, nobody);
    const before = await requestCount(sb, 'POST /auth/merchant/token/generate');
    const r = await mpay(['balances', '--json'], { env: cliEnv(sb, cfg) });
    expect(r.code, r.stderr).toBe(9);
    expect(r.json().error.message).toBe(
      `The config folder ${cfg} belongs to another user (uid ${nobody}); mpay will not read or write it`,
    );
    chownSync(cfg, 0, 0);
    chmodSync(cfg, 0o700);
    writeFileSync(join(cfg, 'config.json'), '{"profiles":{}}', { mode: 0o600 });
    chownSync(join(cfg, 'config.json'), nobody, nobody);
    const file = await mpay(['balances', '--json'], { env: cliEnv(sb, cfg) });
    expect(file.code, file.stderr).toBe(9);
    expect(file.json().error.message).toMatch(/^The config file .*config\.json belongs to another user/);
    expect(await requestCount(sb, 'POST /auth/merchant/token/generate')).toBe(before);
  },
);

it('a redirect to a URL with user:pass@ is refused', async () => {
  const redirector = await loopbackServer((_req, res) => {
    res.writeHead(302, { location: 'http://user:pw@127.0.0.2:9/restapi/v1/public/countries' });
    res.end();
  });
  try {
    const r = await mpay(['countries', '--json'], { env: cliEnv(redirector, tempDir()) });
    expect(r.code, r.stderr).toBe(7);
    expect(r.json().error.message).toMatch(
      /refused a redirect from http:\/\/127\.0\.0\.1:\d+ to a URL with user:pass@/,
    );
  } finally {
    await redirector.close();
  }
});

it('--json output writes C1 controls and bidi characters as \\u escapes: the same values, nothing raw on a terminal', async () => {
  const name = 'Gh\u009b31mana\u202eevil\u2066';
  const server = await loopbackServer((req, res) => {
    if (req.url!.includes('countries')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ success: true, message: 'ok', data: [{ id: 1, name, code: 'GH' }] }));
    }
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ success: false, message: `bad \u009b\u202e`, errors: { merchant_key: [name] } }),
    );
  });
  try {
    const env = cliEnv(server, tempDir());
    const r = await mpay(['countries', '--json'], { env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(r.stdout).toContain('Gh\\u009b31mana\\u202eevil\\u2066');
    expect(r.json()[0].name).toBe(name);
    const e = await mpay(['token', '--json'], { env, tty: true });
    expect(e.code, e.stderr).not.toBe(0);
    expect(e.stdout + e.stderr).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
  } finally {
    await server.close();
  }
});
