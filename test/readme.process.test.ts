// The README's install and quickstart, run as written against a sandbox; and the curl walkthrough of a
// deposit and a withdraw that docs/sandbox.md holds. (The figures of docs/development.md: figures.process.test.ts.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root, sandbox, tempDir } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it("docs/sandbox.md's curl walkthrough does a full deposit and a full withdraw", async () => {
  const readme = readFileSync(join(root, 'docs', 'sandbox.md'), 'utf8');
  const block = /<!-- readme-curl:start -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBeTruthy();
  const script = `set -euo pipefail\n${block!.replace('http://127.0.0.1:4010', sb.url)}`;
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { timeout: 20_000 });
  const lines = stdout.trim().split('\n');
  expect(lines).toEqual([
    expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
    'initiated',
    'pending',
    'initiated',
    expect.stringMatching(/sent to the customer email/),
    'pending',
  ]);
  expect(sb.state.list().map((t) => `${t.kind}:${t.status}`)).toEqual([
    'deposit:pending',
    'withdraw:pending',
  ]);
});

it('the install and "try it" sections work as written, with the alias and no global install', async () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = (name: string) =>
    new RegExp(`<!-- readme-${name}:start -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme)?.[1] ?? '';
  const install = block('install').split('\n');
  const alias = install.find((l) => l.startsWith('alias mpay='));
  expect(alias).toBeTruthy();
  expect(install.some((l) => /npm link|sudo/.test(l))).toBe(false);
  // The guided deposit and withdraw ask questions; the pseudo-terminal tests drive those.
  const tryIt = block('try')
    .split('\n')
    .filter((l) => l.trim() && !/^mpay (deposit|withdraw)\b/.test(l))
    .map((l) => l.replaceAll('http://127.0.0.1:4010', sb.url));
  expect(tryIt.length).toBeGreaterThanOrEqual(4);
  const script = [
    'set -euo pipefail',
    'shopt -s expand_aliases',
    `cd ${root}`,
    alias!,
    'mpay --version',
    ...tryIt,
  ].join('\n');
  const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
    timeout: 20_000,
    env: { PATH: process.env.PATH, HOME: tempDir(), MPAY_CONFIG_DIR: tempDir() },
  });
  expect(stdout).toMatch(/^mpay-cli\/\d+\.\d+\.\d+/);
  expect(stdout + stderr).toMatch(/Logged in: profile default, sandbox/);
  expect(stdout).toMatch(/All checks passed/);
  expect(stdout).toMatch(/GHS/);
});

it('the README reads in five minutes: at most 250 lines, mpay on the PATH before any line runs it, the two commands as they are', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  const alias = readme.indexOf('alias mpay=');
  const firstUse = readme.search(/(^|[`\s(])mpay [a-z-]/m);
  expect(alias).toBeGreaterThan(0);
  expect(firstUse).toBeGreaterThan(alias);
  expect(readme).toContain('npm ci && node bin/run.js demo');
  expect(readme).toContain('\nbash .ci/run ');
  // every docs/ page it sends a reader to is there
  for (const [, page] of readme.matchAll(/\]\((docs\/[^)#]+|SECURITY\.md)\)/g))
    expect(existsSync(join(root, page!)), page).toBe(true);
});
