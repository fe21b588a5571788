#!/usr/bin/env node
// node scripts/bench-ab.js --old DIR [--rounds N]
//
// The start-up of a merchant call (`currencies --merchant --json`, with a cached token) on the npm path
// (bin/run.js) and the executable, of another checkout (DIR, built: dist/ and dist/mpay-<platform>-<arch>)
// against this one, interleaved run by run so that the machine's noise falls on both alike. Medians in ms.
//
// Three set-ups of this checkout's credentials: from the environment (MPAY_MERCHANT_KEY…, as the main
// bench does), from a profile kept in the file (login --insecure-storage), and, when this process has a
// D-Bus session with a Secret Service (run it under dbus-run-session with gnome-keyring unlocked; see
// docs/performance.md), from a profile kept in the keyring. The other checkout runs the same commands
// in the same set-ups (it has no keyring: its keyring run is its file profile).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const { values } = parseArgs({ options: { old: { type: 'string' }, rounds: { type: 'string' } } });
if (!values.old) {
  console.error('usage: node scripts/bench-ab.js --old DIR [--rounds N]');
  process.exit(2);
}
const rounds = Number(values.rounds ?? 25);
const here = fileURLToPath(new URL('..', import.meta.url));
const exeName = `mpay-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

// A sandbox of this checkout's, on a free port, for both.
const sb = spawn(process.execPath, [join(here, 'bin', 'run.js'), 'sandbox', '--port', '0', '--json'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = await new Promise((resolve) => {
  let out = '';
  sb.stdout.on('data', (d) => {
    out += d;
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line));
  });
});

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function timed(cmd, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return ms;
}

const keyring = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const setups = ['environment', 'file profile', ...(keyring ? ['keyring profile'] : [])];

/** One checkout's runners for a set-up: its npm path and a copy of its executable, in a folder alone. */
function prepare(dir, setup, label) {
  const config = mkdtempSync(join(tmpdir(), `mpay-ab-${label}-`));
  const exe = join(mkdtempSync(join(tmpdir(), 'mpay-ab-exe-')), 'mpay');
  copyFileSync(join(dir, 'dist', exeName), exe);
  const creds = {
    MPAY_MERCHANT_KEY: info.merchant_key,
    MPAY_SITE_ID: info.site_id,
    MPAY_API_KEY: info.api_key,
  };
  const inherited = Object.entries(process.env).filter(([k]) => !k.startsWith('MPAY_'));
  const base = { ...Object.fromEntries(inherited), MPAY_CONFIG_DIR: config, MPAY_BASE_URL: info.url };
  const bin = join(dir, 'bin', 'run.js');
  if (setup !== 'environment') {
    const args = ['login', '--env', 'sandbox', '--base-url', info.url, '--merchant-key-stdin'];
    args.push('--site-id', info.site_id, '--api-key', info.api_key);
    if (setup === 'file profile') args.push('--insecure-storage');
    const r = spawnSync(process.execPath, [bin, ...args], {
      env: base,
      input: info.merchant_key,
      encoding: 'utf8',
    });
    // An older checkout has no --insecure-storage: it keeps the file anyway.
    if (r.status !== 0) {
      const again = spawnSync(process.execPath, [bin, ...args.filter((a) => a !== '--insecure-storage')], {
        env: base,
        input: info.merchant_key,
        encoding: 'utf8',
      });
      if (again.status !== 0) throw new Error(`login failed in ${dir}: ${r.stderr}${again.stderr}`);
    }
  }
  const env = setup === 'environment' ? { ...base, ...creds } : base;
  const call = ['currencies', '--merchant', '--json'];
  timed(process.execPath, [bin, ...call], env); // caches the token (and warms the code cache)
  timed(exe, call, env);
  return {
    npm: () => timed(process.execPath, [bin, ...call], env),
    exe: () => timed(exe, call, env),
  };
}

const results = [];
try {
  for (const setup of setups) {
    const old = prepare(values.old, setup, 'old');
    const now = prepare(here, setup, 'new');
    const t = { oldNpm: [], newNpm: [], oldExe: [], newExe: [] };
    for (let i = 0; i < rounds; i++) {
      t.oldNpm.push(old.npm());
      t.newNpm.push(now.npm());
      t.oldExe.push(old.exe());
      t.newExe.push(now.exe());
    }
    results.push({
      setup,
      npm_old_ms: median(t.oldNpm),
      npm_new_ms: median(t.newNpm),
      exe_old_ms: median(t.oldExe),
      exe_new_ms: median(t.newExe),
    });
  }
} finally {
  sb.kill();
}
const base = median(Array.from({ length: 15 }, () => timed(process.execPath, ['-e', '0'], process.env)));
console.log(JSON.stringify({ rounds, node_e_0_ms: base, results }, null, 2));
