#!/usr/bin/env node
// node scripts/bench-startup.js [--pairs N]
//
// Start-up against a loopback sandbox (#45 item 6): `mpay countries --json` as whole processes, each run
// paired with a `node -e 0` run just before it (alternating, so that a machine busy with other work
// weighs on both alike), for the npm-installed mpay (bin/run.js) and for the single executable. The
// targets: within 2.2x and 1.3x of `node -e 0`, medians of 25 pairs; `node -e 0` is this machine's Node,
// as the targets were set (docs/performance.md), and the executable is also paired with the Node it
// carries, for information. What each phase of the npm-installed mpay's start-up costs, two ways: as the
// differences of medians between runs that stop after it (Node itself, --version, --help, countries
// --json), and as the CPU time of each phase within one run of countries --json (scripts/startup-phases.cjs:
// bin/run.js, reading the bundle, the code cache and whether it was used, the bundle's modules evaluated,
// oclif and the command up to its request, the request, the output), with every package that only some
// commands use (SQLite, the keyring, conf, fastify, the MCP SDK, ...) that the run loaded, and its cost.
// Also part of `npm run bench`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
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

const phasesProbe = join(root, 'scripts', 'startup-phases.cjs');

/**
 * The same pairs in CPU time (user and system, of the process alone, from the probe's exit: a busy machine
 * stretches the clock of a process that waits on another, the sandbox here, far more than its CPU time).
 */
function cpuPaired(pairs, base, cmd, env) {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-cpu-'));
  const once = ([c, args], file) => {
    const r = spawnSync(c, args, {
      env: { ...env, NODE_OPTIONS: `--require ${phasesProbe}`, MPAY_PHASES_FILE: file },
      stdio: 'ignore',
    });
    if (r.status !== 0) throw new Error(`${c} ${args.join(' ')} exited ${r.status}`);
  };
  for (let i = 0; i < pairs; i++) {
    once(base, join(dir, 'base'));
    once(cmd, join(dir, 'cmd'));
  }
  const totals = (f) =>
    readFileSync(join(dir, f), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).total_ms);
  const [ma, mb] = [median(totals('base')), median(totals('cmd'))];
  return {
    baseline_cpu_ms: +ma.toFixed(1),
    command_cpu_ms: +mb.toFixed(1),
    cpu_ratio: +(mb / ma).toFixed(2),
  };
}

/** The CPU time of each phase of `countries --json`: medians of `runs` runs (scripts/startup-phases.cjs). */
function cpuPhases(runs, env) {
  const file = join(mkdtempSync(join(tmpdir(), 'mpay-phases-')), 'phases.jsonl');
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['--require', phasesProbe, bin, 'countries', '--json'], {
      env: { ...env, MPAY_PHASES_FILE: file },
      stdio: 'ignore',
    });
    if (r.status !== 0) throw new Error(`countries --json under the phases probe exited ${r.status}`);
  }
  const rows = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const med = (k) => +median(rows.map((r) => r[k] ?? 0)).toFixed(1);
  return {
    'Node itself, up to bin/run.js': med('node_ms'),
    'bin/run.js: which command, the loader, the bundle hashed': +(med('bin_ms') - med('read_ms')).toFixed(1),
    'reading the bundle and its code cache': med('read_ms'),
    [`the code cache deserialized (${[...new Set(rows.map((r) => r.code_cache))].join(', ')})`]:
      med('compile_ms'),
    "the bundle's modules evaluated (oclif, the command classes, zod's schemas)": med('evaluate_ms'),
    "oclif's Config and manifest, the flags, the Factory, got loaded, up to the request": med('command_ms'),
    'the request and its answer (this process only)': med('request_ms'),
    'the output and the exit': med('output_ms'),
    total: med('total_ms'),
    'packages loaded that only some commands use (SQLite, keyring, conf, fastify, MCP SDK, ...)': [
      ...new Set(rows.flatMap((r) => Object.keys(r.packages))),
    ],
  };
}

export function benchStartup({ sandbox, pairs }) {
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MPAY_'))),
    MPAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mpay-bs-')),
    MPAY_BASE_URL: sandbox.url,
  };
  const node = [process.execPath, ['-e', '0']];
  const npm = [process.execPath, [bin, 'countries', '--json']];
  const out = { npm: { ...paired(pairs, node, npm, env), ...cpuPaired(pairs, node, npm, env) } };
  if (existsSync(exe)) {
    const run = [exe, ['countries', '--json']];
    out.exe = { ...paired(pairs, node, run, env), ...cpuPaired(pairs, node, run, env) };
    const own = [exeNode(), ['-e', '0']];
    out.exe_against_its_own_node = { ...paired(pairs, own, run, env), ...cpuPaired(pairs, own, run, env) };
  }
  const phase = (args) => median(Array.from({ length: pairs }, () => timeOnce(process.execPath, args, env)));
  const steps = {
    node: phase(['-e', '0']),
    version: phase([bin, '--version']),
    help: phase([bin, '--help']),
    countries: phase([bin, 'countries', '--json']),
  };
  out.cpu_phases_ms = cpuPhases(pairs, env);
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
    ...(r.exe ? { 'exe countries --json ≤ 1.3x node -e 0 (25 pairs)': r.exe.ratio <= 1.3 } : {}),
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
