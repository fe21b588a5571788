// Hardening against a hostile or misconfigured network and another local user: plain http never through
// a remote proxy, redirects held to the base URL's rule and stripped of added headers on another host,
// no `user:pass@` or `*.localhost` base URL, answers read up to a bound, nothing a server sends can drive
// the terminal, and files that may hold customers' data written 0600 and never through a link. Only
// loopback addresses are contacted: a "remote" proxy or target is a name under .invalid, which resolves
// nowhere, so a correct mpay refuses or bypasses it before any connection.
import { existsSync, lstatSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cliEnv, customerArgs, run, sandbox, tempDir } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('under umask 000 the trace and the support bundle are 0600; a link at --out is refused; no temporary file is left', async () => {
  const cfg = tempDir();
  const dir = tempDir();
  const trace = join(dir, 'run.har');
  const env = cliEnv(sb, cfg);
  const umask = (args: string[]) =>
    run([], {
      command: [
        '/bin/sh',
        '-c',
        'umask 000; exec "$0" "$@"',
        process.execPath,
        join(process.cwd(), 'bin', 'run.js'),
        ...args,
      ],
      env,
    });
  const dep = await umask(['deposit', ...customerArgs({ reference: 'umask-1' }), '--trace', trace]);
  expect(dep.code, dep.stderr).toBe(0);
  expect(statSync(trace).mode & 0o777).toBe(0o600);
  expect(readdirSync(dir)).toEqual(['run.har']);
  const out = join(dir, 'bundle.tar.gz');
  // A link planted where the bundle goes (another user's, in a shared folder): refused, its target untouched.
  // The two bundles at once: neither writes where the other does.
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'keep me');
  const link = join(dir, 'planted.tar.gz');
  symlinkSync(victim, link);
  const [bundle, refused] = await Promise.all([
    umask(['support', 'bundle', '--out', out, '--trace-file', trace]),
    umask(['support', 'bundle', '--out', link, '--json']),
  ]);
  expect(bundle.code, bundle.stderr).toBe(0);
  expect(statSync(out).mode & 0o777).toBe(0o600);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.json().error.message).toBe(`Refusing to write the bundle through the link ${link}`);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(existsSync(victim) && statSync(victim).size).toBe(7);
});
