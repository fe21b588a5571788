// #33 item 11: `bash .ci/run`, the README's test command, on any developer's machine. It runs here in a copy
// of the repository's shape (.ci/run itself, the real test files) with a PATH of its own: the programs the
// script uses, and stand-ins for npm, id, uname, sudo, apt-get and brew that record how they were called.
// So "a Mac", "not root", "sudo asks a password" and "the keyring packages are missing" are each a PATH.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, tempDir } from './helpers.js';
import { missing, without } from './tools.js';

const real = ['bash', 'grep', 'sort', 'tr', 'dirname', 'cat'];
const keyringTools = ['gnome-keyring-daemon', 'dbus-daemon', 'dbus-send', 'secret-tool', 'gdbus'];

interface Machine {
  /** what `uname -s` says */
  os?: 'Linux' | 'Darwin';
  root?: boolean;
  /** sudo is there and asks no password */
  sudo?: boolean;
  aptGet?: boolean;
  brew?: boolean;
  /** the test programs on PATH before the run */
  has?: string[];
  /** npm test's exit */
  testExit?: number;
}

function runCi(m: Machine, env: Record<string, string> = {}) {
  const repo = tempDir('mpay-ci-');
  mkdirSync(join(repo, '.ci'));
  writeFileSync(join(repo, '.ci', 'run'), readFileSync(join(root, '.ci', 'run')));
  symlinkSync(join(root, 'test'), join(repo, 'test'));
  const bin = join(repo, 'bin');
  mkdirSync(bin);
  const calls = join(repo, 'calls');
  writeFileSync(calls, '');
  const stub = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!${which('bash')}\necho "${name} $*" >> '${calls}'\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  for (const p of real) symlinkSync(which(p), join(bin, p));
  stub('npm', `[ "$1" = test ] && exit ${m.testExit ?? 0}; exit 0`);
  stub('id', `echo ${m.root ? 0 : 1000}`);
  stub('uname', `echo ${m.os ?? 'Linux'}`);
  for (const p of m.has ?? []) stub(p, 'exit 0');
  // an install puts every program on PATH, as the packages would
  const installs = [...keyringTools, 'tmux'].map(
    (p) => `printf '#!/bin/sh\\n' > '${bin}/${p}'; chmod +x '${bin}/${p}'`,
  );
  if (m.sudo !== undefined)
    stub('sudo', m.sudo ? '[ "$1" = -n ] && shift; "$@"' : '[ "$1" = -n ] && exit 1; exit 0');
  if (m.aptGet) stub('apt-get', `[ "$1" = install ] && { ${installs.join('; ')}; }; exit 0`);
  if (m.brew) stub('brew', `${installs.join('; ')}; exit 0`);
  const r = spawnSync(which('bash'), [join(repo, '.ci', 'run')], {
    env: { PATH: bin, HOME: repo, ...env },
    encoding: 'utf8',
  });
  // what the script had done: npm, sudo, apt-get and brew (not its readings of id and uname)
  const done = readFileSync(calls, 'utf8').trim().split('\n');
  return { code: r.status, stderr: r.stderr, calls: done.filter((c) => /^(npm|sudo|apt-get|brew) /.test(c)) };
}

function which(p: string): string {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', p], { encoding: 'utf8' });
  return r.stdout.trim();
}

describe('11. bash .ci/run on any developer machine', () => {
  it('without root and without the packages: installs nothing, runs the tests, names the skipped ones and what to install', () => {
    const r = runCi({ sudo: true, aptGet: true, testExit: 0 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls.filter((c) => /^(sudo|apt-get)/.test(c))).toEqual([]);
    expect(r.calls).toEqual(['npm ci', 'npm test']);
    // said before the tests and again after them
    const head = 'Some tests are skipped here, for want of these programs (CI=true never skips them):';
    expect(r.stderr.split(head).length - 1, r.stderr).toBe(2);
    const line = (p: string) => r.stderr.split('\n').find((l) => l.startsWith(`  ${p}: tests in `)) ?? '';
    for (const f of [
      'test/pty.process.test.ts',
      'test/pty-widths.process.test.ts',
      'test/portable.process.test.ts',
    ])
      expect(line('tmux')).toContain(f);
    for (const p of keyringTools) expect(line(p)).toContain('test/keyring.process.test.ts');
    expect(line('tmux')).not.toContain('test/keyring.process.test.ts');
    expect(r.stderr).toContain(
      'To run them (Debian, Ubuntu): sudo apt-get install tmux gnome-keyring dbus libsecret-tools libglib2.0-bin',
    );
  });

  it("the tests' exit is the script's", () => {
    expect(runCi({ testExit: 1 }).code).toBe(1);
  });

  it('on a Mac: what Homebrew has, and that the keyring tests need Linux', () => {
    const r = runCi({ os: 'Darwin', brew: true, has: ['dbus-daemon', 'dbus-send'] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls).toEqual(['npm ci', 'npm test']);
    expect(r.stderr).toContain('To run them: brew install tmux glib');
    expect(r.stderr).toMatch(/Secret Service \(gnome-keyring\), which runs on Linux only/);
  });

  it('with everything there, says nothing of skipping', () => {
    const r = runCi({ has: [...keyringTools, 'tmux'] });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/skipped/);
  });

  it('CI=true installs what is missing (as root, or through sudo without a password), then runs', () => {
    for (const m of [
      { root: true, aptGet: true },
      { sudo: true, aptGet: true },
    ]) {
      const r = runCi(m, { CI: 'true' });
      expect(r.code, r.stderr).toBe(0);
      const install = r.calls.find((c) => c.startsWith('apt-get install'));
      expect(install).toMatch(/tmux gnome-keyring dbus libsecret-tools libglib2\.0-bin$/);
      if (!m.root) expect(r.calls).toContain(`sudo -n ${install}`);
      expect(r.calls.slice(-2)).toEqual(['npm ci', 'npm test']);
      expect(r.stderr).not.toMatch(/skipped/);
    }
  });

  it('CI=true where nothing can be installed fails before any test, never a silent skip', () => {
    for (const m of [
      { sudo: false, aptGet: true }, // sudo asks a password
      { aptGet: true }, // no sudo, not root
      {}, // neither apt-get nor Homebrew
      { os: 'Darwin' as const, brew: true }, // Homebrew, which has no Secret Service
    ]) {
      const r = runCi(m, { CI: 'true' });
      expect(r.code, JSON.stringify(m)).toBe(1);
      expect(
        r.calls.filter((c) => c.startsWith('npm')),
        JSON.stringify(m),
      ).toEqual([]);
      expect(r.stderr).toMatch(/^\.ci\/run: /m);
    }
  });

  it('a test that needs a missing program is skipped only without CI', () => {
    const gone = 'mpay-no-such-program';
    expect(missing(gone, 'sh')).toEqual([gone]);
    const ci = process.env.CI;
    try {
      delete process.env.CI;
      expect(without(gone)).toBe(true);
      expect(without('sh')).toBe(false);
      process.env.CI = 'true';
      expect(without(gone)).toBe(false);
    } finally {
      if (ci === undefined) delete process.env.CI;
      else process.env.CI = ci;
    }
    expect(existsSync(join(root, '.ci', 'run'))).toBe(true);
  });
});
