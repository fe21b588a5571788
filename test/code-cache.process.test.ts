// The V8 code cache of bin/load-cached.js: a cache is only ever used for the exact bytes and the Node
// that made it, and a read-only install neither writes nor pays for building a cache it cannot keep.
// The loader runs in child processes on a small bundle of the test's own; the read-only cases run as an
// unprivileged user, because root writes through any file mode.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installRuntimes } from '../scripts/node-runtimes.js';
import { asNobody, isRoot, nobody, root, tempDir } from './helpers.js';

const loader = join(root, 'bin', 'load-cached.js');
const recorder = join(root, 'test', 'fixtures', 'record-writes.cjs');

/**
 * A folder with the loader, a runner, the recorder of writes and a bundle whose value is `v`: everything
 * the run needs is in it, so that nobody can run it wherever the checkout lives (a folder only its owner
 * can enter included).
 */
function scene(v: string): { dir: string; dist: string; bundle: string } {
  const dir = tempDir('mpay-cc-');
  chmodSync(dir, 0o755);
  const dist = join(dir, 'dist');
  mkdirSync(dist);
  copyFileSync(loader, join(dir, 'load-cached.js'));
  copyFileSync(recorder, join(dir, 'record-writes.cjs'));
  writeFileSync(
    join(dir, 'run.mjs'),
    "import { loadBundle } from './load-cached.js';\nconsole.log(loadBundle(new URL('./dist/b.cjs', import.meta.url)).v);\n",
  );
  const bundle = join(dist, 'b.cjs');
  writeFileSync(bundle, `module.exports = { v: ${JSON.stringify(v)} + [1, 2].map((x) => x * 2).join() };\n`);
  return { dir, dist, bundle };
}

/** Runs the scene's runner (as nobody when the test runs as root), returning stdout and what was recorded. */
function load(dir: string, env: Record<string, string>, unprivileged = false) {
  const log = join(dir, `record-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  chmodSync(log, 0o666);
  const args = ['--require', join(dir, 'record-writes.cjs'), join(dir, 'run.mjs')];
  const [cmd, argv] =
    unprivileged && isRoot ? asNobody([process.execPath, ...args]) : [process.execPath, args];
  const r = spawnSync(cmd, argv as string[], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env, RECORD_LOG: log },
  });
  expect(r.status, r.stderr).toBe(0);
  const recorded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { out: r.stdout.trim(), recorded };
}

describe('the V8 code cache', () => {
  it('a same-length edit to the bundle runs the new code, and the old cache is dropped', () => {
    const { dir, dist, bundle } = scene('AAAA');
    const env = { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') };
    expect(load(dir, env).out).toBe('AAAA2,4');
    const first = readdirSync(dist).filter((f) => f.endsWith('.v8cache'));
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(
      new RegExp(
        `^b\\.cjs\\.[0-9a-f]{16}\\.${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`,
      ),
    );
    // A second run uses that cache and builds none.
    const again = load(dir, env);
    expect(again.out).toBe('AAAA2,4');
    expect(again.recorded).not.toContain('createCachedData');
    // The same length, other bytes: V8 alone would accept the old cache and print AAAA.
    const text = readFileSync(bundle, 'utf8');
    writeFileSync(bundle, text.replace('AAAA', 'BBBB'));
    expect(readFileSync(bundle, 'utf8').length).toBe(text.length);
    expect(load(dir, env).out).toBe('BBBB2,4');
    const after = readdirSync(dist).filter((f) => f.endsWith('.v8cache'));
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(first[0]);
  });

  it('a read-only dist/ with a writable user cache folder: the cache goes there, dist/ is never written', () => {
    const { dir, dist } = scene('RO');
    chmodSync(dist, 0o555);
    const xdg = join(dir, 'xdg');
    mkdirSync(xdg, { mode: 0o700 });
    if (isRoot) chownSync(xdg, nobody, nobody);
    const env = { HOME: join(dir, 'nohome'), XDG_CACHE_HOME: xdg };
    const first = load(dir, env, true);
    expect(first.out).toBe('RO2,4');
    expect(first.recorded).toContain('createCachedData');
    expect(first.recorded.filter((l) => l !== 'createCachedData').every((l) => l.includes(xdg))).toBe(true);
    expect(readdirSync(dist)).toEqual(['b.cjs']);
    expect(readdirSync(join(xdg, 'mpay')).filter((f) => f.endsWith('.v8cache'))).toHaveLength(1);
    const second = load(dir, env, true);
    expect(second.out).toBe('RO2,4');
    expect(second.recorded).toEqual([]);
  });

  it('a read-only dist/ and no writable cache folder: no write attempt and no cache built, run after run', () => {
    const { dir, dist } = scene('NONE');
    chmodSync(dist, 0o555);
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    const env = { HOME: locked, XDG_CACHE_HOME: join(locked, 'cache') };
    for (let i = 0; i < 2; i++) {
      const r = load(dir, env, true);
      expect(r.out).toBe('NONE2,4');
      expect(r.recorded).toEqual([]);
    }
    expect(readdirSync(dist)).toEqual(['b.cjs']);
    expect(readdirSync(locked)).toEqual([]);
  });
});

describe('a cache another user could have written is never run', () => {
  /** The cache's name for the scene's bundle, as the loader names it. */
  const nameOf = (bundle: string) =>
    `b.cjs.${createHash('sha256').update(readFileSync(bundle, 'utf8')).digest('hex').slice(0, 16)}.${process.version}-${process.arch}.v8cache`;
  const debug = (dir: string, env: Record<string, string>) =>
    spawnSync(process.execPath, [join(dir, 'run.mjs')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env, MPAY_CODE_CACHE_DEBUG: '1' },
    });

  it.skipIf(!isRoot || Number(process.versions.node.split('.')[0]) >= 22)(
    'a dist/ writable by others is passed over; a cache file of another owner in a sound dist/ is not read',
    () => {
      const { dir, dist, bundle } = scene('PLANT');
      const env = { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') };
      // Installed under umask 000: every user may write dist/.
      chmodSync(dist, 0o777);
      expect(load(dir, env).out).toBe('PLANT2,4');
      expect(readdirSync(dist)).toEqual(['b.cjs']);
      const own = join(dir, 'xdg', 'mpay', nameOf(bundle));
      expect(statSync(own).mode & 0o777).toBe(0o600);
      // Another user plants a cache there (a valid one, here: a planted one would run its own code).
      const planted = join(dist, nameOf(bundle));
      copyFileSync(own, planted);
      chownSync(planted, nobody, nobody);
      chmodSync(planted, 0o644);
      const r = debug(dir, env);
      expect(r.stdout.trim()).toBe('PLANT2,4');
      expect(r.stderr).toContain(`mpay: code cache: not trusted: ${dist} (owner 0, mode 777)`);
      // A sound dist/, but a cache file that another user owns: not read either.
      chmodSync(dist, 0o755);
      const again = debug(dir, env);
      expect(again.stdout.trim()).toBe('PLANT2,4');
      expect(again.stderr).toContain(`mpay: code cache: not trusted: ${planted} (owner ${nobody}, mode 644)`);
    },
  );

  it.skipIf(Number(process.versions.node.split('.')[0]) >= 22)(
    'a dist/ or a cache file writable by its group, not only one writable by others, is passed over',
    () => {
      const { dir, dist } = scene('GROUP');
      const env = { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') };
      const uid = process.getuid!();
      chmodSync(dist, 0o775);
      const r = debug(dir, env);
      expect(r.stdout.trim()).toBe('GROUP2,4');
      expect(r.stderr).toContain(`mpay: code cache: not trusted: ${dist} (owner ${uid}, mode 775)`);
      expect(readdirSync(dist)).toEqual(['b.cjs']);
      // A sound dist/ (another scene), where the cache is built; made writable by its group, not read.
      const sound = scene('GROUP');
      const soundEnv = { HOME: sound.dir, XDG_CACHE_HOME: join(sound.dir, 'xdg') };
      expect(load(sound.dir, soundEnv).out).toBe('GROUP2,4');
      const cache = join(sound.dist, nameOf(sound.bundle));
      expect(statSync(cache).mode & 0o777).toBe(0o600);
      chmodSync(cache, 0o660);
      const again = debug(sound.dir, soundEnv);
      expect(again.stdout.trim()).toBe('GROUP2,4');
      expect(again.stderr).toContain(`mpay: code cache: not trusted: ${cache} (owner ${uid}, mode 660)`);
    },
  );

  it('Node 24: its compile cache is made private under umask 000, and a file another user put in it makes mpay pass the folder over', () => {
    const node24 = installRuntimes()['24']!;
    const { dir, dist } = scene('N24');
    const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') };
    const r = spawnSync('/bin/sh', ['-c', `umask 000; exec "${node24}" "${join(dir, 'run.mjs')}"`], {
      encoding: 'utf8',
      env,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('N242,4');
    const cache = join(dist, 'node-compile-cache');
    const entries = readdirSync(cache, { recursive: true, withFileTypes: true });
    expect(entries.length).toBeGreaterThan(0);
    for (const e of [cache, ...entries.map((x) => join(x.parentPath, x.name))])
      expect(statSync(e).mode & 0o022, e).toBe(0);
    if (!isRoot) return;
    // Another user's file in the version folder: the folder is passed over (for the user's cache folder).
    const versionDir = entries.find((e) => e.isDirectory())!;
    const planted = join(versionDir.parentPath, versionDir.name, 'planted');
    writeFileSync(planted, 'not mpay');
    chownSync(planted, nobody, nobody);
    const again = spawnSync(node24, [join(dir, 'run.mjs')], {
      encoding: 'utf8',
      env: { ...env, MPAY_CODE_CACHE_DEBUG: '1' },
    });
    expect(again.stdout.trim()).toBe('N242,4');
    expect(again.stderr).toContain(`mpay: code cache: not trusted: ${planted} (owner ${nobody}`);
    expect(readdirSync(join(dir, 'xdg', 'mpay'))).toEqual(['node-compile-cache']);
  });

  it('under umask 000 the cache is written 0600', () => {
    const { dir, dist, bundle } = scene('MASK');
    const r = spawnSync(
      '/bin/sh',
      ['-c', `umask 000; exec "${process.execPath}" "${join(dir, 'run.mjs')}"`],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const cache = join(dist, nameOf(bundle));
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(readdirSync(dist).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('caches of several Node versions', () => {
  /** Every file under dir with its modification time, by path. */
  function files(dir: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
      if (e.isFile()) {
        const p = join(e.parentPath, e.name);
        out.set(p.slice(dir.length), statSync(p).mtimeMs);
      }
    return out;
  }

  it('Node 20, 22 and 24 in turn each keep their own cache, and none rewrites another', () => {
    const { dir, dist } = scene('MIX');
    const env = { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg'), PATH: process.env.PATH ?? '' };
    const nodes = [process.execPath, ...Object.values(installRuntimes())];
    const runAll = () => {
      for (const node of nodes) {
        const r = spawnSync(node, [join(dir, 'run.mjs')], { encoding: 'utf8', env });
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout.trim()).toBe('MIX2,4');
      }
    };
    runAll();
    const first = files(dist);
    // Node 20: this loader's cache, named for its version; 22 and 24: Node's own, a folder each.
    expect(
      [...first.keys()].filter((f) => f.endsWith(`.${process.version}-${process.arch}.v8cache`)),
    ).toHaveLength(1);
    const nodeCaches = new Set(
      [...first.keys()].filter((f) => f.includes('node-compile-cache')).map((f) => f.split(sep)[2]),
    );
    expect(nodeCaches.size).toBe(2);
    runAll();
    runAll();
    expect(files(dist)).toEqual(first);
  });
});
