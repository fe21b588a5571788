// The figures of docs/development.md come from measurements, never from a hand edit:
//
//   node scripts/figures.js measure   clones this repository's HEAD into a temporary folder and runs
//                                     there what the README tells a newcomer to run: `CI=true bash
//                                     .ci/run` (timed, with the peak memory of its whole process tree),
//                                     then `npm run build:exe` with and without the Node runtimes it
//                                     downloads; writes bench/fresh-clone.json
//   node scripts/figures.js readme    rewrites docs/development.md's figures blocks from bench/fresh-clone.json
//                                     and bench/last-full-run.json (a copy of the bench/results.json of
//                                     the last full `npm run bench`, which runs this when it ends)
//   node scripts/figures.js check [FILE]
//                                     exits 1 when the blocks of docs/development.md (or FILE) are not what
//                                     `readme` writes (test/figures.process.test.ts runs it)
//
// `npm run figures` is measure then readme.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';

import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { stripVTControlCharacters } from 'node:util';
import wrapAnsi from 'wrap-ansi';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const freshFile = join(root, 'bench', 'fresh-clone.json');
// npm run bench writes bench/results.json (not kept in git: a --quick run writes it too); the doc's
// figures come from the copy of the last full run's, which is.
const benchRun = join(root, 'bench', 'results.json');
const benchFile = join(root, 'bench', 'last-full-run.json');
// the sandbox filled to 1,000,000 transactions (scripts/bench-sandbox.js, part of npm run bench)
const fillFile = join(root, 'bench', 'sandbox-fill.json');
// a run of `node scripts/bench-sandbox.js --sizes 0,1000000 --data-only --no-prism`: the restart alone
const restartFile = join(root, 'bench', 'sandbox-restart.json');

/** Bytes under a path, links not followed (what the folder holds on disk, roughly). */
function bytesUnder(path) {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

const mb = (bytes) => Math.round(bytes / 1e6);

/**
 * The resident memory of a process and all its descendants, in bytes, from /proc. A daemon that leaves
 * the tree (tmux's server, the keyring's) is not counted once it has left; shared pages count once per
 * process, as `ps` would add them.
 */
function treeRss(pid) {
  const parents = new Map();
  const rss = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(fields[1]));
      rss.set(Number(name), Number(fields[21]) * 4096);
    } catch {
      // the process ended while being read
    }
  }
  let sum = 0;
  for (const [p] of rss) {
    for (let q = p; q > 1; q = parents.get(q) ?? 0)
      if (q === pid) {
        sum += rss.get(p);
        break;
      }
  }
  return sum;
}

/** Runs a command to its end; its wall time in seconds, its output and its tree's peak memory. */
function timed(cmd, args, opts) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, treeRss(child.pid))), 250);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, output, seconds: (performance.now() - started) / 1000, peakBytes: peak });
    });
  });
}

async function measure() {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-fresh-'));
  // as a clone anywhere else: readable by the unprivileged user some tests run mpay as
  chmodSync(dir, 0o755);
  const clone = join(dir, 'mpay');
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
  }).stdout.trim();
  spawnSync('git', ['clone', '--quiet', root, clone], { stdio: 'inherit' });
  const env = { ...process.env, CI: 'true', MPAY_MEASURING_FIGURES: '1' };
  delete env.MPAY_BASE_URL;
  console.error(`figures: CI=true bash .ci/run in ${clone}`);
  const ci = await timed('bash', ['.ci/run'], { cwd: clone, env });
  if (ci.code !== 0) {
    process.stderr.write(ci.output.slice(-4000));
    throw new Error(`.ci/run exited ${ci.code} in ${clone}`);
  }
  const plain = stripVTControlCharacters(ci.output);
  const count = (re) => Number(re.exec(plain)?.[1] ?? NaN);
  const exe = join(clone, 'dist', `mpay-${process.platform}-${process.arch}`);

  console.error('figures: npm run build:exe, the Node runtimes already downloaded');
  rmSync(exe, { force: true });
  const warm = await timed('npm', ['run', 'build:exe'], { cwd: clone, env });
  // The runtimes live in a per-user cache folder (scripts/node-runtimes.js): an empty one stands for a
  // machine that has none yet, without touching the one other clones use.
  console.error('figures: npm run build:exe from no downloaded runtime');
  const coldCache = join(dir, 'cache');
  const runtimes = join(coldCache, 'mpay-dev', 'node-runtimes');
  rmSync(exe, { force: true });
  const cold = await timed('npm', ['run', 'build:exe'], {
    cwd: clone,
    env: { ...env, XDG_CACHE_HOME: coldCache },
  });
  if (warm.code !== 0 || cold.code !== 0) throw new Error(`npm run build:exe failed in ${clone}`);
  const fetched = existsSync(runtimes)
    ? readdirSync(runtimes).flatMap((n) => /^(\d+)\.\d+\.\d+-[^.]+$/.exec(n)?.[1] ?? [])
    : [];

  const figures = {
    date: new Date().toISOString().slice(0, 10),
    commit,
    machine: { cpus: cpus().length, memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version },
    ci: {
      seconds: Math.round(ci.seconds),
      peak_rss_mb: mb(ci.peakBytes),
      test_files: count(/Test Files\s+(\d+) passed/),
      tests: count(/Tests\s+(\d+) passed/),
      skipped: count(/(\d+) skipped/) || 0,
      vitest_seconds: Math.round(count(/Duration\s+([\d.]+)s/)),
      node_modules_mb: mb(bytesUnder(join(clone, 'node_modules'))),
      node_runtimes_mb: mb(bytesUnder(runtimes)),
      node_runtimes_dir: '~/.cache/mpay-dev/node-runtimes/',
    },
    build_exe: {
      warm_seconds: Math.round(warm.seconds),
      cold_seconds: Math.round(cold.seconds),
      cold_fetched: fetched.map((m) => `Node ${m}`),
      exe_mb: mb(statSync(exe).size),
    },
  };
  writeFileSync(freshFile, `${JSON.stringify(figures, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(figures, null, 2));
}

/** Words joined into lines of at most `width` characters, as the docs' prose is wrapped. */
const paragraph = (text, width = 110) => wrapAnsi(text, width, { hard: false, trim: true });

function freshCloneBlock(f) {
  const { ci, build_exe: exe } = f;
  return paragraph(
    `Measured by \`npm run figures\` (${f.date}, commit ${f.commit}, ${f.machine.cpus} cores, ` +
      `${f.machine.memory_gb} GB, Node ${f.machine.node}): on a fresh clone, \`CI=true bash .ci/run\` took ` +
      `${ci.seconds} s and ran ${ci.tests} tests in ${ci.test_files} files (vitest's own part: ` +
      `${ci.vitest_seconds} s). At its peak its processes held ${ci.peak_rss_mb} MB resident, summed over ` +
      `them (pages they share counted in each). It installed ${ci.node_modules_mb} MB of \`node_modules\` ` +
      // a measurement from before the runtimes moved out of the clone says where they were then
      (ci.node_runtimes_dir
        ? `(from npm's cache, which was warm); the Node runtimes it runs on (${ci.node_runtimes_mb} MB, ` +
          `unpacked) are kept outside the clone, in \`${ci.node_runtimes_dir}\`, which every clone reuses. `
        : `(from npm's cache, which was warm) and put ${ci.node_runtimes_mb} MB of Node runtimes, unpacked, ` +
          `into \`.cache/node-runtimes/\`, which later runs reuse. `) +
      `\`npm run build:exe\` took ` +
      `${exe.cold_seconds} s when it had to fetch ${exe.cold_fetched.join(' and ') || 'nothing'} first, and ` +
      `${exe.warm_seconds} s once they were there; it writes one ${exe.exe_mb} MB file.`,
  );
}

function benchBlock(r) {
  const row = (label, key) =>
    `| ${label} | ${r.startup_ms[key].median.toFixed(0)} ms | ${r.startup_ratio_to_node[key].toFixed(2)} | ${r.peak_rss_mb[key].toFixed(0)} MB |`;
  const sb = r.sandbox;
  const rps = (k) => `${(Math.round(sb[k].rps / 100) * 100).toLocaleString('en-US')}`;
  const batch = r.batch['1000 deposit rows, concurrency 8'];
  return [
    paragraph(
      `Figures of ${r.date.slice(0, 10)}, ${r.machine.cpus} cores (${r.machine.model}), Node ` +
        `${r.machine.node}, medians of ${r.rounds} interleaved rounds, \`node -e 0\` taking ` +
        `${r.startup_ms['node -e 0'].median.toFixed(0)} ms in the same rounds; "executable" is ` +
        `\`dist/mpay-linux-x64\` (Node ${r.exe.node.replace(/^v/, '')} inside):`,
    ),
    '',
    '| | median | × `node -e 0` | peak RSS |',
    '| --- | --- | --- | --- |',
    row('`mpay --version`', 'mpay --version'),
    row('`mpay --help`', 'mpay --help'),
    row('`mpay countries --json` (sandbox on loopback)', 'mpay countries --json'),
    row('`mpay currencies --merchant --json`', 'mpay currencies --merchant --json'),
    row('executable `--version`', 'exe --version'),
    row('executable `--help`', 'exe --help'),
    row('executable `countries --json`', 'exe countries --json'),
    '',
    paragraph(
      `Sandbox: GET /public/currencies ${rps('GET /public/currencies')} req/s ` +
        `(${sb['GET /public/currencies'].ratio_to_bare} of a bare fastify route; ` +
        `${sb['GET /public/currencies'].ratio_to_bare_same_bytes} of a bare route sending the same bytes), ` +
        `GET /merchant/currencies ${rps('GET /merchant/currencies')} ` +
        `(${sb['GET /merchant/currencies'].ratio_to_bare_same_bytes} of the same bytes), POST /payments/initiate ` +
        `${rps('POST /payments/initiate')} (${sb['POST /payments/initiate'].ratio_to_bare} of the bare route; ` +
        `${sb['POST /payments/initiate'].ratio_to_bare_same_bytes} of a bare POST route with the same bytes). ` +
        `A batch of 1,000 deposits at concurrency 8 took ${batch.seconds.toFixed(1)} s at a peak of ` +
        `${batch.peak_rss_mb.toFixed(0)} MB.`,
    ),
  ].join('\n');
}

/** The restart of a later run of --data alone, when there is one: a paragraph, or nothing. */
function restartParagraph(f, r) {
  const full = r?.with_data.rows.at(-1);
  if (!full?.restart_read || r.date <= f.date) return [];
  const n = (x) => x.toLocaleString('en-US');
  const k = r.with_data.kill9;
  return [
    '',
    paragraph(
      `A restart at ${n(full.size)} held from the snapshot beside the data file (a run of \`--data\` alone, ` +
        `${r.date.slice(0, 10)}, load average ${r.machine.load_average_at_start.join(', ')}): ${full.restart_seconds} s ` +
        `from the spawn to an answered initiate, of which ${full.restart_read.seconds} s reading the data ` +
        `(an empty sandbox: ${r.with_data.rows[0].restart_seconds} s); with the snapshot set aside, the whole log ` +
        `read, ${full.restart_log_only_seconds} s (${full.restart_log_only_read?.seconds} s reading). ` +
        (k
          ? `After a kill -9 in a burst of initiates: ${k.restart_seconds} s, ${n(k.read_back)} transactions read back. `
          : '') +
        `The restart column above is of the earlier run of the whole bench.`,
    ),
  ];
}

/** The restarts of the fill run itself at its largest size, when it measured them: a sentence, or nothing. */
function fillRestarts(f) {
  const full = f.with_data.rows.at(-1);
  if (!full?.restart_read || full.restart_log_only_seconds === undefined) return '';
  const n = (x) => x.toLocaleString('en-US');
  const k = f.with_data.kill9;
  return (
    ` At ${n(full.size)} held, the restart read its data in ${full.restart_read.seconds} s ` +
    `(from the snapshot, of which a start reads the references' hashes, the rest after it); with the snapshot ` +
    `set aside, the whole log read, it answered after ${full.restart_log_only_seconds} s ` +
    `(${full.restart_log_only_read?.seconds} s reading)` +
    (k
      ? `, and after a kill -9 in a burst of initiates after ${k.restart_seconds} s, ${n(k.read_back)} transactions read back (${n(k.answered_200_before_kill)} answered before the kill).`
      : '.')
  );
}

function sandboxFillBlock(f, r) {
  const n = (x) => x.toLocaleString('en-US');
  // the two fills went through the same sizes; a window at one size can carry the next past it
  const rows = f.without_data.rows.map((m, k) => {
    const d = f.with_data.rows[k] ?? {};
    const held =
      d.size !== undefined && Math.abs(d.size - m.size) > m.size / 100
        ? `${n(m.size)} (${n(d.size)} with \`--data\`)`
        : n(m.size);
    return `| ${held} | ${n(m.initiate.rps)} | ${m.initiate.p99_ms} ms | ${Math.round(m.memory.rss_mb)} MB | ${d.initiate ? n(d.initiate.rps) : ''} | ${d.initiate ? `${d.initiate.p99_ms} ms` : ''} | ${d.restart_seconds ?? ''} s |`;
  });
  const p = f.prism;
  return [
    paragraph(
      `The sandbox filled with deposit initiates (\`npm run bench\`, ${f.date.slice(0, 10)}, ${f.machine.cpus} cores ` +
        `shared with other work: load average ${f.machine.load_average_at_start.join(', ')} at its start` +
        // under a load above the cores, windows of the same size differ by up to 3x (seen at load 9 to 16)
        (Math.max(...f.machine.load_average_at_start) > f.machine.cpus
          ? ', so throughput moves by 3x between windows'
          : '') +
        `); initiates for ${f.window_seconds} s at each size, 10 connections; ` +
        `restart: from the spawn of \`mpay sandbox --data\` to an answered initiate:`,
    ),
    '',
    '| held | initiates/s | p99 | resident | with `--data`: initiates/s | p99 | restart |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    paragraph(
      `A held transaction costs ${f.without_data.summary.rss_bytes_per_transaction} bytes of resident memory ` +
        `(${f.with_data.summary.rss_bytes_per_transaction} with \`--data\`).` +
        fillRestarts(f) +
        (p
          ? ` Beside Stoplight Prism's mock server on the same document, an empty sandbox answered GET countries ` +
            `${p.countries.ratio}x as fast (${n(p.countries.sandbox.rps)} against ${n(p.countries.prism.rps)} a second) and ` +
            `deposit initiates ${p.initiate.ratio}x (${n(p.initiate.sandbox.rps)} against ${n(p.initiate.prism.rps)}).`
          : ''),
    ),
    ...restartParagraph(f, r),
  ].join('\n');
}

async function rendered(readme) {
  const blocks = {
    'fresh-clone': freshCloneBlock(JSON.parse(readFileSync(freshFile, 'utf8'))),
    bench: benchBlock(JSON.parse(readFileSync(benchFile, 'utf8'))),
    'sandbox-fill': sandboxFillBlock(
      JSON.parse(readFileSync(fillFile, 'utf8')),
      existsSync(restartFile) ? JSON.parse(readFileSync(restartFile, 'utf8')) : undefined,
    ),
  };
  let text = readme;
  for (const [name, body] of Object.entries(blocks)) {
    const re = new RegExp(`(<!-- figures:${name}:start -->)[\\s\\S]*?(<!-- figures:${name}:end -->)`);
    if (!re.test(text)) throw new Error(`${path} has no figures:${name} block`);
    text = text.replace(re, (_, start, end) => `${start}\n\n${body}\n\n${end}`);
  }
  // prettier lays out the tables as `prettier --check .` wants them
  const prettier = await import('prettier');
  return prettier.format(text, {
    ...(await prettier.resolveConfig(join(root, 'docs', 'development.md'))),
    parser: 'markdown',
  });
}

const [mode, path = join(root, 'docs', 'development.md')] = process.argv.slice(2);
if (mode === 'measure') await measure();
else if (mode === 'readme') {
  if (existsSync(benchRun) && !JSON.parse(readFileSync(benchRun, 'utf8')).quick)
    writeFileSync(benchFile, readFileSync(benchRun));
  writeFileSync(path, await rendered(readFileSync(path, 'utf8')));
} else if (mode === 'check') {
  const now = readFileSync(path, 'utf8');
  if ((await rendered(now)) !== now) {
    console.error(
      `figures: ${path}'s figures are not those of bench/*.json: run node scripts/figures.js readme`,
    );
    process.exitCode = 1;
  }
} else {
  console.error('usage: node scripts/figures.js measure | readme | check [FILE]');
  process.exitCode = 2;
}
