#!/usr/bin/env node
// npm run bench [-- [--quick] [--out FILE]]: start-up, round trips and sandbox throughput, as ratios to
// baselines measured in the same run (node -e 0, curl, a bare fastify route). Commands are interleaved
// round by round so that a slow moment of the machine spreads over all of them. Writes bench/results.json
// (or FILE); --quick (or BENCH_QUICK=1) runs fewer rounds, shorter.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { exeRuntime, installRuntimes, runtimes } from './node-runtimes.js';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
// --out FILE: where the figures go (default bench/results.json; the smoke test writes to a temp folder).
const outArg = process.argv.indexOf('--out');
const outFile = outArg > 0 ? process.argv[outArg + 1] : join(root, 'bench', 'results.json');
const rounds = quick ? 3 : 15;
const loadSeconds = quick ? 1 : 3;

const targets = {
  version: 1.8,
  countries: 2.2,
  sandboxGet: 0.7,
  sandboxPost: 0.4,
  rssMb: 80,
  batchSeconds: 10,
  batchRssMb: 150,
  // 1,000 rows against --latency 100 --rate-limit 200/s: wall time ≤ 1.15x the limit's own bound
  rateLimitedRatio: 1.15,
  // the single executable (npm run build:exe)
  exeCountries: 1.3,
  exeHelp: 1.2,
  exeVersion: 1.05,
  exeRssMb: 70,
};

// The executable is rebuilt first, so that it is measured from the same sources as bin/run.js; and
// the same snapshot is taken once more as a plain blob, to measure what `node --snapshot-blob` would give
// the npm-installed mpay (docs/performance.md "The npm-installed mpay").
const exe = join(
  root,
  'dist',
  `mpay-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`,
);
const blob = join(root, 'dist', 'mpay-bench.snapshot');
// The Node inside the executable (from the npm registry): its own `node -e 0` is measured too.
const exeNode = installRuntimes()[exeRuntime];
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-exe.js')], {
  stdio: ['ignore', 'ignore', 'pipe'],
  encoding: 'utf8',
});
if (build.status !== 0) throw new Error(`build-exe failed: ${build.stderr}`);
const snap = spawnSync(
  process.execPath,
  ['--snapshot-blob', blob, '--build-snapshot', join(root, 'dist', 'mpay-exe.cjs')],
  { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' },
);
if (snap.status !== 0) throw new Error(`the snapshot blob failed: ${snap.stderr}`);
// Measured from a copy, as an installed file is: the file postject has just written peaks ~16 MB higher in
// RSS (its pages are mapped differently until they are written back; 81 MB against 64 MB for --version).
const exeCopy = join(mkdtempSync(join(tmpdir(), 'mpay-bench-exe-')), 'mpay');
copyFileSync(exe, exeCopy);

/** Starts a child that prints one JSON line with its URL, and waits for that line. */
function startServer(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, info: JSON.parse(line) });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const stats = (xs) => ({
  median: +median(xs).toFixed(1),
  min: +Math.min(...xs).toFixed(1),
  max: +Math.max(...xs).toFixed(1),
  runs: xs.length,
});

function timeOnce(cmd, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/**
 * One run of a command with its wall time and peak RSS in MB: from GNU time where it is installed, else
 * from the Node process itself (process.resourceUsage at exit, loaded with --import; Node commands only).
 */
const gnuTime = existsSync('/usr/bin/time') && process.env.BENCH_RSS_FROM_NODE !== '1';
const rssHook = `data:text/javascript,${encodeURIComponent("process.on('exit', () => process.stderr.write('\\nmpay-bench-rss ' + process.resourceUsage().maxRSS + '\\n'))")}`;
function measured(cmd, args, env) {
  const options = { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' };
  const t = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', 'mpay-bench-rss %M', cmd, ...args], options)
    : cmd === process.execPath
      ? spawnSync(cmd, ['--import', rssHook, ...args], options)
      : spawnSync(cmd, args, options);
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  const kb = Number(/mpay-bench-rss (\d+)/.exec(r.stderr)?.[1]);
  return {
    ms,
    status: r.status,
    stderr: r.stderr,
    peakRssMb: Number.isFinite(kb) ? +(kb / 1024).toFixed(1) : null,
  };
}

/** Peak RSS in MB of one run (a separate, untimed run). */
const peakRss = (cmd, args, env) => measured(cmd, args, env).peakRssMb;

/** One run of mpay, timed, with its peak RSS in MB; a failed run stops the bench. */
function timedRun(args, env) {
  const r = measured(process.execPath, args, env);
  if (r.status !== 0) throw new Error(`mpay ${args.slice(1).join(' ')} exited ${r.status}: ${r.stderr}`);
  return { seconds: +(r.ms / 1000).toFixed(2), peak_rss_mb: r.peakRssMb };
}

/** A deposit batch file of n rows for the bench sandbox; `tag` keeps each run's references new. */
function batchFile(dir, n, tag) {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const name = (i) => `B${[0, 1, 2, 3].map((k) => letters[Math.floor(i / 26 ** k) % 26]).join('')}`;
  const lines = ['currency,country,amount,first_name,phone,email,gateway'];
  for (let i = 0; i < n; i++)
    lines.push(`GHS,GH,1,${name(i)},+233201${String(i % 1e6).padStart(6, '0')},b${tag}-${i}@example.com,1`);
  const path = join(dir, `batch-${n}-${tag}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function load(url, opts = {}) {
  const r = await autocannon({ url, duration: loadSeconds, connections: 50, pipelining: 1, ...opts });
  return {
    rps: Math.round(r.requests.average),
    p99_ms: r.latency.p99,
    errors: r.errors + r.non2xx,
    timeouts: r.timeouts,
  };
}

const sandbox = await startServer([bin, 'sandbox', '--port', '0', '--json']);
const bare = await startServer([join(root, 'scripts', 'bench-bare.js')]);
try {
  const base = sandbox.info.url;
  const configDir = mkdtempSync(join(tmpdir(), 'mpay-bench-'));
  const env = {
    ...process.env,
    MPAY_CONFIG_DIR: configDir,
    MPAY_BASE_URL: base,
    MPAY_MERCHANT_KEY: sandbox.info.merchant_key,
    MPAY_SITE_ID: sandbox.info.site_id,
    MPAY_API_KEY: sandbox.info.api_key,
  };
  // A cached token, as a merchant who ran `mpay token` once has.
  spawnSync(process.execPath, [bin, 'token'], { env });
  const token = JSON.parse(
    spawnSync(process.execPath, [bin, 'token', '--json'], { env, encoding: 'utf8' }).stdout,
  ).token;
  const hasCurl = spawnSync('curl', ['--version']).status === 0;

  const commands = {
    'node -e 0': [process.execPath, ['-e', '0']],
    'mpay --version': [process.execPath, [bin, '--version']],
    'mpay --help': [process.execPath, [bin, '--help']],
    'mpay deposit --help': [process.execPath, [bin, 'deposit', '--help']],
    'mpay countries --json': [process.execPath, [bin, 'countries', '--json']],
    'mpay currencies --merchant --json': [process.execPath, [bin, 'currencies', '--merchant', '--json']],
    'mpay api GET /public/countries': [process.execPath, [bin, 'api', 'GET', '/public/countries']],
    'exe --version': [exeCopy, ['--version']],
    'exe --help': [exeCopy, ['--help']],
    'exe deposit --help': [exeCopy, ['deposit', '--help']],
    'exe countries --json': [exeCopy, ['countries', '--json']],
    'exe currencies --merchant --json': [exeCopy, ['currencies', '--merchant', '--json']],
    [`node ${exeRuntime} -e 0`]: [exeNode, ['-e', '0']],
    [`mpay countries --json on Node ${exeRuntime}`]: [exeNode, [bin, 'countries', '--json']],
    'node --snapshot-blob countries --json': [
      process.execPath,
      ['--snapshot-blob', blob, 'countries', '--json'],
    ],
    ...(hasCurl
      ? {
          'curl countries': ['curl', ['-sSf', `${base}/restapi/v1/public/countries`]],
          'curl merchant currencies': [
            'curl',
            ['-sSf', '-H', `Authorization: Bearer ${token}`, `${base}/restapi/v1/merchant/currencies`],
          ],
        }
      : {}),
  };
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (const [cmd, args] of Object.values(commands)) timeOnce(cmd, args, env); // warm the file cache
  for (let i = 0; i < rounds; i++)
    for (const [k, [cmd, args]] of Object.entries(commands)) times[k].push(timeOnce(cmd, args, env));
  const startup = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, stats(xs)]));
  const nodeMs = startup['node -e 0'].median;
  const rss = Object.fromEntries(
    Object.entries(commands)
      .filter(([k]) => !k.startsWith('curl'))
      .map(([k, [cmd, args]]) => [k, peakRss(cmd, args, env)]),
  );

  // The sandbox under load, beside bare fastify routes measured the same way: one with a tiny body, and
  // one per endpoint answering a fixed body of the same bytes (the cost of the bytes on loopback is the
  // same for both; what differs is the sandbox's own work). Interleaved, round by round.
  let seq = 0;
  const initiateBody = () =>
    JSON.stringify({
      merchant_key: sandbox.info.merchant_key,
      site_id: 1,
      api_key: sandbox.info.api_key,
      currency_code: 'GHS',
      country_code: 'GH',
      customer_first_name: 'Bench',
      customer_phone: '+233201234567',
      customer_email: 'bench@example.com',
      customer_transaction_id: `bench-${process.pid}-${++seq}`,
      amount: '10',
    });
  const auth = { authorization: `Bearer ${token}` };
  const post = (url, headers) => ({
    url,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: initiateBody() }) }],
  });
  const endpoints = {
    'GET /public/currencies': { url: `${base}/restapi/v1/public/currencies` },
    'GET /merchant/currencies': { url: `${base}/restapi/v1/merchant/currencies`, headers: auth },
    'POST /payments/initiate': post(`${base}/restapi/v1/payments/initiate`, auth),
  };
  // The same bytes for the bare routes: each endpoint's answer, taken once.
  const sameBytes = {};
  for (const [name, ep] of Object.entries(endpoints)) {
    const res = await fetch(ep.url, {
      method: ep.method ?? 'GET',
      headers: ep.headers ? { ...ep.headers } : undefined,
      body: ep.method === 'POST' ? initiateBody() : undefined,
    });
    const key = name.replace(/\W+/g, '_');
    await fetch(`${bare.info.url}/static/${key}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: await res.text(),
    });
    sameBytes[name] =
      ep.method === 'POST'
        ? post(`${bare.info.url}/echo/${key}`, {})
        : { url: `${bare.info.url}/static/${key}` };
  }
  const runs = { bare: [] };
  for (const name of Object.keys(endpoints)) {
    runs[name] = [];
    runs[`${name} (bare, same bytes)`] = [];
  }
  for (let round = 0; round < (quick ? 1 : 3); round++) {
    runs.bare.push(await load(`${bare.info.url}/bare`));
    for (const [name, ep] of Object.entries(endpoints)) {
      const { url, ...o } = ep;
      runs[name].push(await load(url, o));
      const { url: bareUrl, ...bo } = sameBytes[name];
      runs[`${name} (bare, same bytes)`].push(await load(bareUrl, bo));
    }
  }
  const throughput = Object.fromEntries(
    Object.entries(runs).map(([k, rs]) => [
      k,
      {
        rps: Math.round(median(rs.map((r) => r.rps))),
        p99_ms: median(rs.map((r) => r.p99_ms)),
        errors: rs.reduce((n, r) => n + r.errors, 0),
      },
    ]),
  );
  const bareRps = throughput.bare.rps;

  // Batches: 1,000 deposit rows at concurrency 8, each the whole journaled flow (initiate, status update,
  // processed: 3,000 requests), in a config folder of their own; and 100,000 rows validated (--dry-run),
  // for the memory of the streamed checks.
  const batchRows = quick ? 200 : 1000;
  const batchEnv = { ...env, MPAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mpay-bench-batch-')) };
  const batchRun = timedRun(
    [
      bin,
      'deposit',
      'batch',
      batchFile(configDir, batchRows, `${process.pid}`),
      '--concurrency',
      '8',
      '--yes',
    ],
    batchEnv,
  );
  const validateRows = quick ? 10000 : 100000;
  const validateRun = timedRun(
    [bin, 'deposit', 'batch', batchFile(configDir, validateRows, `v${process.pid}`), '--dry-run'],
    batchEnv,
  );
  // Rate-limited: the same rows against a sandbox that answers each request after 100 ms and allows 200
  // a second (429 with Retry-After beyond). No run can beat the limit's own bound, (answered calls) / 200
  // seconds; the ratio says how close the batch's pacing comes to it.
  const limited = await startServer([
    bin,
    'sandbox',
    '--port',
    '0',
    '--json',
    '--latency',
    '100',
    '--rate-limit',
    '200/s',
  ]);
  let limitedRun;
  try {
    const r = measured(
      process.execPath,
      [
        bin,
        'deposit',
        'batch',
        batchFile(configDir, batchRows, `r${process.pid}`),
        '--concurrency',
        '64',
        '--yes',
      ],
      {
        ...env,
        MPAY_BASE_URL: limited.info.url,
        MPAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mpay-bench-limited-')),
      },
    );
    if (r.status !== 0) throw new Error(`the rate-limited batch exited ${r.status}: ${r.stderr}`);
    const counts = await (await fetch(`${limited.info.url}/_sandbox/requests`)).json();
    const refused = Object.entries(counts)
      .filter(([k]) => k.startsWith('429 '))
      .reduce((n, [, c]) => n + c, 0);
    const arrived = Object.entries(counts)
      .filter(([k]) => !k.startsWith('429 '))
      .reduce((n, [, c]) => n + c, 0);
    const calls = arrived - refused;
    const seconds = +(r.ms / 1000).toFixed(2);
    const pace =
      /Rate limited (\d+) times?: requests were paced down to (\d+) a second, and ended at (\d+)/.exec(
        r.stderr,
      );
    limitedRun = {
      seconds,
      peak_rss_mb: r.peakRssMb,
      rows_per_second: Math.round(batchRows / seconds),
      answered_calls: calls,
      refused_429: refused,
      bound_seconds: +(calls / 200).toFixed(2),
      ratio_to_bound: +(seconds / (calls / 200)).toFixed(3),
      paced_down_to: pace ? Number(pace[2]) : null,
      paced_at_end: pace ? Number(pace[3]) : null,
      failed_or_unknown: Number(
        /(\d+) failed, (\d+) unknown/
          .exec(r.stderr)
          ?.slice(1, 3)
          .reduce((a, b) => +a + +b, 0) ?? NaN,
      ),
    };
  } finally {
    limited.child.kill('SIGINT');
  }
  const batch = {
    [`${batchRows} deposit rows, concurrency 8`]: {
      ...batchRun,
      rows_per_second: Math.round(batchRows / batchRun.seconds),
    },
    [`${validateRows} rows validated (--dry-run)`]: {
      ...validateRun,
      rows_per_second: Math.round(validateRows / validateRun.seconds),
    },
    [`${batchRows} rows, 100 ms, 200/s limit, conc. 64`]: limitedRun,
  };

  // What the journal's length costs (scripts/bench-journal.js): 100,000 and 1,000,000 transactions.
  const { benchJournal, journalTargets } = await import('./bench-journal.js');
  const journal = await benchJournal({
    sandbox: sandbox.info,
    sizes: quick ? [10_000] : [100_000, 1_000_000],
    rounds: quick ? 3 : 7,
    // 1,000,000 by SQL (its journal of JSON lines takes minutes to write and import; 100,000 measures the
    // import), unless BENCH_JOURNAL_FILL says otherwise
    fill: (size) => process.env.BENCH_JOURNAL_FILL ?? (size >= 1_000_000 ? 'sql' : 'jsonl'),
  });

  // countries --json start-up as 25 alternating pairs with node -e 0, and each phase's cost
  // (scripts/bench-startup.js).
  const { benchStartup, startupTargets } = await import('./bench-startup.js');
  const startupPairs = benchStartup({ sandbox: sandbox.info, pairs: quick ? 5 : 25 });

  // mpay run: a scenario of 100 steps against a shell script of the same mpay commands.
  const { benchScenario, scenarioTargetRatio } = await import('./bench-scenario.js');
  const scenario = benchScenario({ bin, env, rounds: quick ? 1 : 3 });
  // What bounded input costs (scripts/bench-inputs.js): a gigabyte-unpacked bundle refused, and the peak
  // of a scenario of 100,000 steps (5,000 with --quick).
  const { benchInputs, inputTargets } = await import('./bench-inputs.js');
  const inputs = await benchInputs({ bin, env, quick });

  // What the money gate costs a money call beyond the journal's sync (scripts/bench-gate.js).
  const { runGateBench, gateTargetMs } = await import('./bench-gate.js');
  const gate = await runGateBench(quick ? 200 : 2000);
  // How long a second signal takes to end mpay when its work never finishes (scripts/bench-signal.js).
  const { benchSignal, signalTargetMs } = await import('./bench-signal.js');
  const signals = await benchSignal(quick ? 2 : 5);
  // What a profile kept in the OS keyring costs, its child process included (scripts/bench-keyring.js).
  const { benchKeyring } = await import('./bench-keyring.js');
  const keyring = await benchKeyring({ rounds: quick ? 3 : rounds, sandbox: sandbox.info });
  // The sandbox filled to 1,000,000 transactions, with and without --data, and beside Prism
  // (scripts/bench-sandbox.js).
  const { benchSandbox, printSandbox } = await import('./bench-sandbox.js');
  const sandboxFill = await benchSandbox({ quick });

  const ratio = (x, y) => +(x / y).toFixed(2);
  const results = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    quick,
    rounds,
    load_seconds: loadSeconds,
    exe: {
      node: `v${runtimes[exeRuntime]}`,
      file: exe,
      mb: +(statSync(exe).size / 2 ** 20).toFixed(1),
      // the executable's blob: its snapshot and its assets
      blob_mb: +(statSync(join(root, 'dist', 'mpay-exe.blob')).size / 2 ** 20).toFixed(1),
      // the same snapshot taken by this Node as a plain blob (node --snapshot-blob)
      plain_snapshot_mb: +(statSync(blob).size / 2 ** 20).toFixed(1),
    },
    startup_ms: startup,
    startup_ratio_to_node: Object.fromEntries(
      Object.entries(startup).map(([k, v]) => [k, ratio(v.median, nodeMs)]),
    ),
    exe_ratio_to_its_own_node: Object.fromEntries(
      Object.entries(startup)
        .filter(([k]) => k.startsWith('exe '))
        .map(([k, v]) => [k, ratio(v.median, startup[`node ${exeRuntime} -e 0`].median)]),
    ),
    round_trip_ratio_to_curl: hasCurl
      ? {
          'mpay countries --json': ratio(
            startup['mpay countries --json'].median,
            startup['curl countries'].median,
          ),
          'mpay currencies --merchant --json': ratio(
            startup['mpay currencies --merchant --json'].median,
            startup['curl merchant currencies'].median,
          ),
          'mpay api GET /public/countries': ratio(
            startup['mpay api GET /public/countries'].median,
            startup['curl countries'].median,
          ),
        }
      : null,
    peak_rss_mb: rss,
    batch,
    scenario,
    inputs,
    journal,
    startup_pairs: startupPairs,
    money_gate: gate,
    second_signal: signals,
    keyring,
    sandbox_fill: sandboxFill,
    sandbox: Object.fromEntries(
      Object.entries(throughput).map(([k, v]) => [
        k,
        {
          ...v,
          ratio_to_bare: ratio(v.rps, bareRps),
          ...(endpoints[k]
            ? { ratio_to_bare_same_bytes: ratio(v.rps, throughput[`${k} (bare, same bytes)`].rps) }
            : {}),
        },
      ]),
    ),
  };
  const checks = {
    'mpay --version ≤ 1.8x node': results.startup_ratio_to_node['mpay --version'] <= targets.version,
    'mpay countries --json ≤ 2.5x node':
      results.startup_ratio_to_node['mpay countries --json'] <= targets.countries,
    'sandbox GET ≥ 70% of a bare route with the same bytes':
      Math.min(
        results.sandbox['GET /public/currencies'].ratio_to_bare_same_bytes,
        results.sandbox['GET /merchant/currencies'].ratio_to_bare_same_bytes,
      ) >= targets.sandboxGet,
    'sandbox POST initiate ≥ 40% of a bare POST route with the same bytes':
      results.sandbox['POST /payments/initiate'].ratio_to_bare_same_bytes >= targets.sandboxPost,
    'sandbox GET /public/currencies ≥ 70% of the tiny bare route':
      results.sandbox['GET /public/currencies'].ratio_to_bare >= targets.sandboxGet,
    'peak RSS of countries < 80 MB': (rss['mpay countries --json'] ?? Infinity) < targets.rssMb,
    'exe countries --json ≤ 1.3x node':
      results.startup_ratio_to_node['exe countries --json'] <= targets.exeCountries,
    'exe --help ≤ 1.2x node': results.startup_ratio_to_node['exe --help'] <= targets.exeHelp,
    'exe --version ≤ 1.05x node': results.startup_ratio_to_node['exe --version'] <= targets.exeVersion,
    'peak RSS of exe countries < 70 MB': (rss['exe countries --json'] ?? Infinity) < targets.exeRssMb,
    ...(quick
      ? {}
      : {
          '1,000 batch rows in < 10 s': batchRun.seconds < targets.batchSeconds,
          'peak RSS of the 1,000-row batch < 150 MB': (batchRun.peak_rss_mb ?? Infinity) < targets.batchRssMb,
          '1,000 rate-limited rows ≤ 1.15x the limit’s bound, none failed, < 150 MB':
            limitedRun.ratio_to_bound <= targets.rateLimitedRatio &&
            limitedRun.failed_or_unknown === 0 &&
            (limitedRun.peak_rss_mb ?? Infinity) < targets.batchRssMb,
        }),
  };
  Object.assign(checks, journalTargets(journal));
  Object.assign(checks, startupTargets(startupPairs));
  checks[`mpay run of 100 steps ≤ ${scenarioTargetRatio}x a shell script of the same commands`] =
    scenario.ratio_to_shell <= scenarioTargetRatio;
  checks[`a gigabyte-unpacked bundle refused under ${inputTargets.bundleRssMb} MB of RSS`] =
    (inputs.bundle.peak_rss_mb ?? Infinity) < inputTargets.bundleRssMb;
  checks[`mpay run of ${inputs.scenario.steps} steps under ${inputTargets.scenarioRssMb} MB of RSS`] =
    (inputs.scenario.peak_rss_mb ?? Infinity) < inputTargets.scenarioRssMb;
  checks[`the money gate's own work ≤ ${gateTargetMs} ms a step (median, the lock held by its flow)`] =
    gate.lock_held_own_ms.median <= gateTargetMs;
  checks[`the money gate's own work ≤ ${gateTargetMs} ms a single call (median, the step takes the lock)`] =
    gate.gate_own_ms.median <= gateTargetMs;
  checks[`a second signal ends mpay within ${signalTargetMs} ms (the slowest of every round)`] =
    Math.max(
      signals.batch_second_sigint_ms.max,
      signals.batch_second_sigterm_ms.max,
      signals.sandbox_second_sigint_ms,
    ) <= signalTargetMs;
  for (const [mode, met] of Object.entries(sandboxFill.targets_met))
    if (typeof met === 'boolean') checks[`sandbox: ${mode}`] = met;
    else for (const [k, ok] of Object.entries(met)) checks[`sandbox ${mode.replace('_', ' ')}: ${k}`] = ok;
  results.targets_met = checks;

  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);

  const pad = (s, n) => String(s).padEnd(n);
  console.log(
    `mpay bench${quick ? ' (quick: figures are indicative only)' : ''}, ${results.machine.cpus} cores, node ${process.version}, ${rounds} rounds\n`,
  );
  console.log(
    `${pad('command', 40)}${pad('median ms', 11)}${pad('min', 8)}${pad('max', 8)}${pad('x node', 8)}peak RSS MB`,
  );
  for (const [k, v] of Object.entries(startup))
    console.log(
      `${pad(k, 40)}${pad(v.median, 11)}${pad(v.min, 8)}${pad(v.max, 8)}${pad(results.startup_ratio_to_node[k], 8)}${rss[k] ?? ''}`,
    );
  // The executable against the `node -e 0` of the Node inside it: not a target (the targets compare with
  // this machine's Node), shown so that no one mistakes the newer Node's speed for mpay's.
  console.log(
    `\nthe executable against its own Node (node ${exeRuntime} -e 0): ${Object.entries(
      results.exe_ratio_to_its_own_node,
    )
      .map(([k, v]) => `${k.replace('exe ', '')} ${v}x`)
      .join(', ')}`,
  );
  if (results.round_trip_ratio_to_curl)
    console.log(
      `\nround trip as a ratio to curl: ${Object.entries(results.round_trip_ratio_to_curl)
        .map(([k, v]) => `${k} ${v}x`)
        .join(', ')}`,
    );
  console.log(
    `\n${pad('sandbox (autocannon, 50 connections)', 50)}${pad('req/s', 9)}${pad('p99 ms', 8)}${pad('errors', 8)}${pad('x bare', 8)}x same bytes`,
  );
  for (const [k, v] of Object.entries(results.sandbox))
    console.log(
      `${pad(k, 50)}${pad(v.rps, 9)}${pad(v.p99_ms, 8)}${pad(v.errors, 8)}${pad(v.ratio_to_bare, 8)}${v.ratio_to_bare_same_bytes ?? ''}`,
    );
  console.log(`\n${pad('batch', 44)}${pad('seconds', 9)}${pad('rows/s', 8)}peak RSS MB`);
  for (const [k, v] of Object.entries(batch))
    console.log(`${pad(k, 44)}${pad(v.seconds, 9)}${pad(v.rows_per_second, 8)}${v.peak_rss_mb ?? ''}`);
  console.log(
    `rate-limited: ${limitedRun.answered_calls} calls answered, bound ${limitedRun.bound_seconds} s, ratio ${limitedRun.ratio_to_bound}; ${limitedRun.refused_429} refused with 429; paced down to ${limitedRun.paced_down_to}/s, ${limitedRun.paced_at_end}/s at the end`,
  );
  console.log(
    `\n${pad('journal (transactions)', 16)}${pad('deposit ms', 12)}${pad('history ms', 12)}${pad('show ms', 9)}${pad('resume ms', 11)}${pad('export jsonl', 20)}${pad('export csv', 20)}first command (import)`,
  );
  for (const [n, r] of Object.entries(journal))
    console.log(
      `${pad(n, 10)}${pad(`${r.deposit.ms} ms, ${r.deposit.peak_rss_mb} MB`, 20)}${pad(r.history.ms, 12)}${pad(r.history_show.ms, 9)}${pad(r.deposit_resume.ms, 11)}${pad(r.export_jsonl ? `${r.export_jsonl.ms} ms, ${r.export_jsonl.peak_rss_mb} MB` : '', 22)}${pad(r.export_csv ? `${r.export_csv.ms} ms, ${r.export_csv.peak_rss_mb} MB` : '', 22)}${r.first_command_import ? `${r.first_command_import.ms} ms` : ''}`,
    );
  if (journal[0]?.node_e_0)
    console.log(
      `(node -e 0 in the same moment: ${journal[0].node_e_0.ms} ms, the floor of each figure above)`,
    );
  console.log(
    `\nstart-up, 25 alternating pairs: countries --json ${startupPairs.npm.command_ms} ms, ${startupPairs.npm.ratio}x node -e 0 (CPU ${startupPairs.npm.cpu_ratio}x)${startupPairs.exe ? `; exe ${startupPairs.exe.command_ms} ms, ${startupPairs.exe.ratio}x (CPU ${startupPairs.exe.cpu_ratio}x)` : ''}`,
  );
  if (startupPairs.exe_against_its_own_node)
    console.log(
      `  the executable against the Node it carries: ${startupPairs.exe_against_its_own_node.baseline_ms} / ${startupPairs.exe_against_its_own_node.command_ms} ms, ${startupPairs.exe_against_its_own_node.ratio}x (CPU ${startupPairs.exe_against_its_own_node.cpu_ratio}x)`,
    );
  console.log('  each phase, as the difference of medians of runs that stop after it (ms):');
  for (const [phase, ms] of Object.entries(startupPairs.phases_ms)) console.log(`  ${pad(ms, 8)} ${phase}`);
  console.log('  each phase of one countries --json, CPU time (ms, medians):');
  for (const [phase, ms] of Object.entries(startupPairs.cpu_phases_ms))
    console.log(`  ${pad(Array.isArray(ms) ? ms.join(', ') || 'none' : ms, 8)} ${phase}`);
  console.log(
    `\nmoney gate, its own work a step beyond the journal's sync: ${gate.lock_held_own_ms.median} ms median with the lock held by its flow; ${gate.gate_own_ms.median} ms when the step takes the lock itself (a single call)`,
  );
  console.log(
    keyring.skipped
      ? `\nkeyring: not measured (${keyring.skipped})`
      : `\nkeyring: its child alone ${keyring['keyring child alone ms (one read)']} ms (${keyring['keyring child ratio to node -e 0']}x node -e 0); currencies --merchant --json ${keyring['currencies --merchant --json, keyring profile ms']} ms with a keyring profile, ${keyring['currencies --merchant --json, file profile ms']} ms with a file profile (+${keyring['keyring profile costs ms']} ms)`,
  );
  console.log(
    `\nmpay run, ${scenario.steps} steps: ${scenario.scenario_seconds} s; the same as a shell script of mpay commands: ${scenario.shell_script_seconds} s (ratio ${scenario.ratio_to_shell})`,
  );
  printSandbox(sandboxFill);
  console.log('\ntargets:');
  for (const [k, ok] of Object.entries(checks)) console.log(`  ${ok ? 'met    ' : 'MISSED '} ${k}`);
  console.log(`\nwritten to ${outFile}`);
  // The figures of docs/development.md come from this file: a full run (not --quick, whose figures are only
  // indicative) written to the default place rewrites them.
  if (!quick && outFile === join(root, 'bench', 'results.json')) {
    writeFileSync(join(root, 'bench', 'sandbox-fill.json'), `${JSON.stringify(sandboxFill, null, 2)}\n`);
    execFileSync(process.execPath, [join(root, 'scripts', 'figures.js'), 'readme'], { stdio: 'inherit' });
    console.log('docs/development.md figures rewritten (scripts/figures.js readme)');
  }
} finally {
  sandbox.child.kill('SIGINT');
  bare.child.kill('SIGINT');
}
