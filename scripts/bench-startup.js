#!/usr/bin/env node
// node scripts/bench-startup.js [--pairs N]
//
// Start-up against a loopback sandbox (#45 item 6): `mpay countries --json` as whole processes, each run
// paired with a `node -e 0` run just before it (alternating, so that a machine busy with other work
// weighs on both alike), for the npm-installed mpay (bin/run.js) and for the single executable (against
// the Node it is built from). The targets: within 2.2x and 1.3x of `node -e 0`, medians of 25 pairs. And
// what each phase of the npm-installed mpay's start-up costs, as the differences of medians between runs
// that stop after it: Node itself (node -e 0), bin/run.js (--version loads nothing more), the bundle and
// oclif (--help), the command's own run with its request (countries --json). Also part of `npm run bench`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exeRuntime, installRuntimes } from './node-runtimes.js';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const exe = join(root, 'dist', `mpay-${process.platform}-${process.arch}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function timeOnce(cmd, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** The Node the executable was built from (scripts/node-runtimes.js): its `node -e 0` is the baseline. */
const exeNode = () => installRuntimes()[exeRuntime];

/** Medians of `pairs` alternating runs of a baseline and a command, and their ratio. */
function paired(pairs, base, cmd, env) {
  const a = [];
  const b = [];
  timeOnce(...base, env);
  timeOnce(...cmd, env);
  for (let i = 0; i < pairs; i++) {
    a.push(timeOnce(...base, env));
    b.push(timeOnce(...cmd, env));
  }
  const [ma, mb] = [median(a), median(b)];
  return { baseline_ms: +ma.toFixed(1), command_ms: +mb.toFixed(1), ratio: +(mb / ma).toFixed(2) };
}

export function benchStartup({ sandbox, pairs }) {
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MPAY_'))),
    MPAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mpay-bs-')),
    MPAY_BASE_URL: sandbox.url,
  };
  const node = [process.execPath, ['-e', '0']];
  const out = {
    npm: paired(pairs, node, [process.execPath, [bin, 'countries', '--json']], env),
  };
  if (existsSync(exe)) {
    out.exe = paired(pairs, [exeNode(), ['-e', '0']], [exe, ['countries', '--json']], env);
  }
  const phase = (args) => median(Array.from({ length: pairs }, () => timeOnce(process.execPath, args, env)));
  const steps = {
    node: phase(['-e', '0']),
    version: phase([bin, '--version']),
    help: phase([bin, '--help']),
    countries: phase([bin, 'countries', '--json']),
  };
  out.phases_ms = {
    'Node itself (node -e 0)': +steps.node.toFixed(1),
    'bin/run.js (mpay --version)': +(steps.version - steps.node).toFixed(1),
    'the bundle from its code cache, oclif (mpay --help)': +(steps.help - steps.version).toFixed(1),
    'the command: context, got, the request, the output (countries --json)': +(
      steps.countries - steps.help
    ).toFixed(1),
  };
  return out;
}

export function startupTargets(r) {
  return {
    'countries --json ≤ 2.2x node -e 0 (npm-installed, 25 pairs)': r.npm.ratio <= 2.2,
    ...(r.exe ? { 'exe countries --json ≤ 1.3x its node -e 0 (25 pairs)': r.exe.ratio <= 1.3 } : {}),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  helpOnAsk(import.meta.url);
  const { values } = parseArgs({ options: { pairs: { type: 'string' } } });
  const { benchSandbox } = await import('./bench-journal.js');
  const { sb, info } = await benchSandbox();
  try {
    const r = benchStartup({ sandbox: info, pairs: Number(values.pairs ?? 25) });
    console.log(JSON.stringify({ startup: r, targets: startupTargets(r) }, null, 2));
  } finally {
    sb.kill();
  }
}
