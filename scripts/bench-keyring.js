#!/usr/bin/env node
// node scripts/bench-keyring.js [--rounds N]: what the OS keyring costs a command now that the library runs
// in a child process (src/config/keyring.ts): the child alone (bin/run.js with MPAY_KEYRING_CHILD=1 reading
// one entry, beside `node -e 0`), and a merchant call (`currencies --merchant --json`, cached token) with
// its profile kept in the keyring against the same profile kept in the file, interleaved. A Secret Service
// of its own: a private dbus-daemon and an unlocked gnome-keyring-daemon (as test/keyring.process.test.ts starts
// them), never the user's. Skipped, saying why, where those are not installed. Also part of `npm run bench`.
// --bin PATH measures another built checkout's bin/run.js (its sandbox too). --exe PATH (the single
// executable, npm run build:exe) measures its child as well, which is the executable itself started from its
// snapshot with MPAY_KEYRING_CHILD=1, and the same merchant call run by the executable.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** bin/run.js of this checkout, or of another built one (--bin PATH: to compare two builds) */
let bin = join(root, 'bin', 'run.js');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return +(s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2).toFixed(1);
};

function timed(cmd, args, opts) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return { ms, stdout: r.stdout };
}

const has = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** A session bus and an unlocked Secret Service of this run's own; stop() ends both. */
async function privateKeyring() {
  const home = mkdtempSync(join(tmpdir(), 'mpay-bench-kr-home-'));
  const runtime = mkdtempSync(join(tmpdir(), 'mpay-bench-kr-run-'));
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const address = await new Promise((resolve, reject) => {
    let out = '';
    bus.on('error', reject);
    bus.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0].trim());
    });
  });
  const env = {
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_RUNTIME_DIR: runtime,
    DBUS_SESSION_BUS_ADDRESS: address,
  };
  const daemon = spawn('gnome-keyring-daemon', ['--unlock', '--daemonize', '--components=secrets'], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  daemon.stdin.end('bench-password');
  await new Promise((resolve) => daemon.on('close', resolve));
  execFileSync('gdbus', ['wait', '--session', '--timeout', '60', 'org.freedesktop.secrets'], {
    env: { ...process.env, ...env },
  });
  const pid = Number(
    /uint32 (\d+)/.exec(
      execFileSync(
        'dbus-send',
        [
          '--session',
          '--dest=org.freedesktop.DBus',
          '--print-reply',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.GetConnectionUnixProcessID',
          'string:org.freedesktop.secrets',
        ],
        { env: { ...process.env, ...env }, encoding: 'utf8' },
      ),
    )?.[1],
  );
  const stop = () => {
    for (const p of [pid, -bus.pid])
      try {
        if (p) process.kill(p, 'SIGKILL');
      } catch {
        // gone already
      }
  };
  return { env, stop };
}

/**
 * The figures, or `{ skipped: why }`. `sandbox`: a running sandbox's facts (url, merchant_key, site_id,
 * api_key); without one, a sandbox of its own is started.
 */
export async function benchKeyring({ rounds = 15, sandbox, runJs, exe } = {}) {
  if (runJs) bin = runJs;
  const missing = ['dbus-daemon', 'gnome-keyring-daemon', 'gdbus', 'dbus-send'].filter((t) => !has(t));
  if (missing.length) return { skipped: `${missing.join(', ')} not installed` };
  let own;
  if (!sandbox) {
    own = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    sandbox = await new Promise((resolve) => {
      let out = '';
      own.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line));
      });
    });
  }
  const kr = await privateKeyring();
  try {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('MPAY_') && !k.startsWith('DBUS_')),
    );
    // Two config folders, the same profile: one kept in the keyring, one in the file; a cached token each.
    const setups = {};
    for (const where of ['keyring', 'file']) {
      const env = {
        ...inherited,
        ...kr.env,
        MPAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), `mpay-bench-kr-${where}-`)),
      };
      const args = ['login', '--env', 'sandbox', '--base-url', sandbox.url, '--merchant-key-stdin'];
      args.push('--site-id', sandbox.site_id, '--api-key', sandbox.api_key);
      if (where === 'file') args.push('--insecure-storage');
      const login = spawnSync(process.execPath, [bin, ...args], {
        env,
        input: sandbox.merchant_key,
        encoding: 'utf8',
      });
      if (login.status !== 0) throw new Error(`login (${where}): ${login.stderr}`);
      if (where === 'keyring' && !/Secret Service/.test(login.stdout))
        throw new Error(`login kept the secrets elsewhere than the keyring: ${login.stdout}${login.stderr}`);
      timed(process.execPath, [bin, 'token'], { env });
      setups[where] = env;
    }
    // The child alone: one read of an entry, as a command's opening asks (bin/run.js, MPAY_KEYRING_CHILD=1).
    const request = JSON.stringify({
      service: `mpay:${setups.keyring.MPAY_CONFIG_DIR}`,
      ops: [{ op: 'get', account: 'default' }],
    });
    const childEnv = { ...setups.keyring, MPAY_KEYRING_CHILD: '1' };
    const answer = JSON.parse(timed(process.execPath, [bin], { env: childEnv, input: request }).stdout);
    if (!answer.answers?.[0] || 'error' in answer.answers[0])
      throw new Error(`the keyring child did not read the entry: ${JSON.stringify(answer)}`);
    if (exe) {
      const byExe = JSON.parse(timed(exe, [], { env: childEnv, input: request }).stdout);
      if (JSON.stringify(byExe) !== JSON.stringify(answer))
        throw new Error(`the executable's keyring child answered otherwise: ${JSON.stringify(byExe)}`);
    }
    const runs = { node: [], child: [], keyring: [], file: [], exeChild: [], exeKeyring: [], exeFile: [] };
    const merchant = ['currencies', '--merchant', '--json'];
    for (let i = 0; i < rounds; i++) {
      runs.node.push(timed(process.execPath, ['-e', '0'], { env: inherited }).ms);
      runs.child.push(timed(process.execPath, [bin], { env: childEnv, input: request }).ms);
      runs.keyring.push(timed(process.execPath, [bin, ...merchant], { env: setups.keyring }).ms);
      runs.file.push(timed(process.execPath, [bin, ...merchant], { env: setups.file }).ms);
      if (!exe) continue;
      runs.exeChild.push(timed(exe, [], { env: childEnv, input: request }).ms);
      runs.exeKeyring.push(timed(exe, merchant, { env: setups.keyring }).ms);
      runs.exeFile.push(timed(exe, merchant, { env: setups.file }).ms);
    }
    const m = Object.fromEntries(
      Object.entries(runs).flatMap(([k, v]) => (v.length ? [[k, median(v)]] : [])),
    );
    const byExe = exe
      ? {
          'executable: keyring child alone ms (one read)': m.exeChild,
          'executable: keyring child ratio to node -e 0': +(m.exeChild / m.node).toFixed(2),
          'executable: currencies --merchant --json, keyring profile ms': m.exeKeyring,
          'executable: currencies --merchant --json, file profile ms': m.exeFile,
          'executable: keyring profile costs ms': +(m.exeKeyring - m.exeFile).toFixed(1),
        }
      : {};
    return {
      rounds,
      'node -e 0 ms': m.node,
      'keyring child alone ms (one read)': m.child,
      'keyring child ratio to node -e 0': +(m.child / m.node).toFixed(2),
      'currencies --merchant --json, keyring profile ms': m.keyring,
      'currencies --merchant --json, file profile ms': m.file,
      'keyring profile costs ms': +(m.keyring - m.file).toFixed(1),
      ...byExe,
    };
  } finally {
    kr.stop();
    own?.kill('SIGINT');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  helpOnAsk(import.meta.url);
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '15' },
      bin: { type: 'string' },
      exe: { type: 'string' },
    },
  });
  console.log(
    JSON.stringify(
      await benchKeyring({ rounds: Number(values.rounds), runJs: values.bin, exe: values.exe }),
      null,
      2,
    ),
  );
}
