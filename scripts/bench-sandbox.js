#!/usr/bin/env node
// The sandbox as a long-running shared server (docs/performance.md "The sandbox as a long-running
// server"): fills a sandbox to 1,000,000 held transactions, with and without --data, and at each size
// measures deposit initiates (p99 and throughput, autocannon, 10 connections), the process's memory
// (resident, and V8's heap plus what it holds outside it, after a full collection), and with --data the
// time a restart takes to answer an initiate. Then Stoplight Prism's mock server on the same OpenAPI
// document, side by side with an empty sandbox without --data.
//
//   node scripts/bench-sandbox.js [--quick] [--sizes 0,10000,1000000] [--out FILE] [--no-prism] [--data-only]
//
// Also run by `npm run bench` (scripts/bench.js). Writes bench/sandbox-fill.json, which
// `node scripts/figures.js readme` reads for the README's figures.
import { existsSync, mkdirSync, mkdtempSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { initiateBody, initiates, memory, startSandbox, tokenOf } from './bench-sandbox-client.js';
import { prismSideBySide } from './bench-prism.js';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export const fillTargets = {
  p99: 2,
  throughput: 0.7,
  bytesPerTransaction: 1024,
  restartSeconds: 2,
  prism: 10,
};

/** Starts the sandbox on `args` and times it until an initiate is answered 200. */
async function timedStart(args) {
  const sb = await startSandbox(args);
  const token = await tokenOf(sb.info.url, sb.info);
  const r = await fetch(`${sb.info.url}/restapi/v1/payments/initiate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: initiateBody(sb.info),
  });
  if (r.status !== 200) throw new Error(`initiate after a restart answered ${r.status}`);
  return { sb, token, seconds: +((performance.now() - sb.t0) / 1000).toFixed(2), read: readOf(sb.stderr()) };
}

/**
 * What the sandbox said of its read of --data: the seconds it took, and from its snapshot (with the lines
 * of the log after it) or from the whole log.
 */
function readOf(stderr) {
  const m =
    /read .*: (\d+) transactions, (?:from its snapshot \(([\d.]+) MB\) and the (\d+) lines of the log after it|(\d+) lines), in ([\d.]+) s/.exec(
      stderr,
    );
  if (!m) return null;
  return m[2] !== undefined
    ? { seconds: +m[5], from: 'snapshot', snapshot_mb: +m[2], log_lines_after: +m[3] }
    : { seconds: +m[5], from: 'log', log_lines: +m[4] };
}

/** A running sandbox stopped with Ctrl-C (it writes its snapshot), then started again and timed. */
async function restart(run, args) {
  run.sb.child.kill('SIGINT');
  await run.sb.exited;
  Object.assign(run, await timedStart(args));
  return { seconds: run.seconds, read: run.read };
}

/**
 * The restarts of a size with --data: after a clean stop (from the snapshot), and at the last size also with
 * the snapshot set aside (the whole log read, as before there was one), then once more from a snapshot.
 */
async function restarts(run, row, dataFile, last) {
  const args = ['--data', dataFile];
  row.data_file_mb = +(statSync(dataFile).size / 2 ** 20).toFixed(1);
  ({ seconds: row.restart_seconds, read: row.restart_read } = await restart(run, args));
  if (last) {
    run.sb.child.kill('SIGINT');
    await run.sb.exited;
    renameSync(`${dataFile}.snapshot`, `${dataFile}.snapshot.aside`);
    Object.assign(run, await timedStart(args));
    row.restart_log_only_seconds = run.seconds;
    row.restart_log_only_read = run.read;
    await restart(run, args);
  }
  if (existsSync(`${dataFile}.snapshot`))
    row.snapshot_mb = +(statSync(`${dataFile}.snapshot`).size / 2 ** 20).toFixed(1);
}

/** A kill -9 with initiates arriving: what the file held, read back, and how long that took. */
async function killNine(run, dataFile) {
  const killed = run.sb;
  const start = (await memory(killed.info.url)).transactions;
  const load = initiates(killed.info.url, killed.info, run.token, { connections: 10, duration: 3 }).catch(
    () => null,
  );
  await new Promise((r) => setTimeout(r, 1500));
  killed.child.kill('SIGKILL');
  await killed.exited;
  const burst = await load;
  Object.assign(run, await timedStart(['--data', dataFile]));
  // less the initiate timedStart sent
  const readBack = (await memory(run.sb.info.url)).transactions - 1;
  const answered = start + (burst ? burst.requests - burst.errors : 0);
  return {
    answered_200_before_kill: answered,
    read_back: readBack,
    lost: answered - readBack,
    restart_seconds: run.seconds,
    read: run.read,
  };
}

const describeRow = (row) =>
  `${row.size.toLocaleString('en-US')} held: ${row.initiate.rps}/s, p99 ${row.initiate.p99_ms} ms, ` +
  `rss ${row.memory.rss_mb} MB (heap ${row.memory.heap_mb}, outside ${row.memory.outside_heap_mb})` +
  (row.data_file_mb !== undefined
    ? `, file ${row.data_file_mb} MB, restart ${row.restart_seconds} s (read ${JSON.stringify(row.restart_read)})`
    : '') +
  (row.restart_log_only_seconds !== undefined
    ? `, from the log alone ${row.restart_log_only_seconds} s (read ${JSON.stringify(row.restart_log_only_read)})`
    : '');

/** One sandbox filled to each size in turn; with `dataFile`, restarted at each size. */
export async function fill({ sizes, windowSeconds, dataFile, log = console.error }) {
  const run = await timedStart(dataFile ? ['--data', dataFile] : []);
  const rows = [];
  try {
    for (const size of sizes) {
      const { sb, token } = run;
      let held = (await memory(sb.info.url)).transactions;
      if (size > held) {
        log(`bench-sandbox: filling to ${size.toLocaleString('en-US')}${dataFile ? ' (--data)' : ''}`);
        const filled = await initiates(sb.info.url, sb.info, token, { connections: 50, amount: size - held });
        log(`bench-sandbox:   ${filled.rps}/s while filling, ${filled.errors} errors`);
      }
      held = (await memory(sb.info.url)).transactions;
      const window = await initiates(sb.info.url, sb.info, token, {
        connections: 10,
        duration: windowSeconds,
      });
      const row = { size: held, initiate: window, memory: await memory(sb.info.url) };
      if (dataFile) await restarts(run, row, dataFile, size === sizes.at(-1));
      log(`bench-sandbox:   ${describeRow(row)}`);
      rows.push(row);
    }
    if (dataFile) {
      rows.kill9 = await killNine(run, dataFile);
      log(`bench-sandbox:   kill -9 in a burst: ${JSON.stringify(rows.kill9)}`);
    }
  } finally {
    run.sb.child.kill('SIGINT');
    await run.sb.exited;
  }
  return rows;
}

/** The figures of one fill against its empty row: the targets' ratios. */
function summary(rows) {
  const empty = rows[0];
  const full = rows.at(-1);
  const n = full.size - empty.size;
  return {
    held: full.size,
    p99_ratio: +(full.initiate.p99_ms / Math.max(empty.initiate.p99_ms, 1)).toFixed(2),
    throughput_ratio: +(full.initiate.rps / empty.initiate.rps).toFixed(2),
    rss_bytes_per_transaction:
      n > 0 ? Math.round(((full.memory.rss_mb - empty.memory.rss_mb) * 2 ** 20) / n) : null,
    heap_and_outside_bytes_per_transaction:
      n > 0
        ? Math.round(
            ((full.memory.heap_mb +
              full.memory.outside_heap_mb -
              empty.memory.heap_mb -
              empty.memory.outside_heap_mb) *
              2 ** 20) /
              n,
          )
        : null,
    restart_seconds: full.restart_seconds ?? null,
    restart_read_seconds: full.restart_read?.seconds ?? null,
    restart_log_only_seconds: full.restart_log_only_seconds ?? null,
  };
}

export async function benchSandbox({
  quick = false,
  sizes,
  prism = true,
  withoutData = true,
  log = console.error,
} = {}) {
  sizes ??= quick ? [0, 2000, 5000] : [0, 10_000, 100_000, 250_000, 500_000, 1_000_000];
  const windowSeconds = quick ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-fill-'));
  const started = Date.now();
  const loadAtStart = loadavg().map((x) => +x.toFixed(1));
  const memoryRows = withoutData ? await fill({ sizes, windowSeconds, log }) : null;
  const dataRows = await fill({ sizes, windowSeconds, dataFile: join(dir, 'sandbox.log'), log });
  const side = prism ? await prismSideBySide({ rounds: quick ? 1 : 3, seconds: quick ? 1 : 5, log }) : null;
  const results = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      load_average_at_start: loadAtStart,
      load_average_at_end: loadavg().map((x) => +x.toFixed(1)),
    },
    quick,
    window_seconds: windowSeconds,
    minutes: +((Date.now() - started) / 60000).toFixed(1),
    without_data: memoryRows && { rows: memoryRows, summary: summary(memoryRows) },
    with_data: { rows: dataRows, kill9: dataRows.kill9 ?? null, summary: summary(dataRows) },
    prism: side,
  };
  const t = fillTargets;
  const met = (s) => ({
    [`initiate p99 at ${s.held.toLocaleString('en-US')} ≤ ${t.p99}x empty`]: s.p99_ratio <= t.p99,
    [`throughput ≥ ${t.throughput}x empty`]: s.throughput_ratio >= t.throughput,
    [`≤ ${t.bytesPerTransaction} bytes a held transaction (resident)`]:
      s.rss_bytes_per_transaction !== null && s.rss_bytes_per_transaction <= t.bytesPerTransaction,
  });
  results.targets_met = {
    without_data: results.without_data ? met(results.without_data.summary) : {},
    with_data: {
      ...met(results.with_data.summary),
      [`restart answers within ${t.restartSeconds} s`]:
        results.with_data.summary.restart_seconds <= t.restartSeconds,
    },
    ...(side && {
      [`≥ ${t.prism}x Prism (countries and initiate)`]:
        side.countries.ratio >= t.prism && side.initiate.ratio >= t.prism,
    }),
  };
  return results;
}

export function printSandbox(results, log = console.log) {
  const pad = (s, n) => String(s).padEnd(n);
  for (const [mode, r] of [
    ['without --data', results.without_data],
    ['with --data', results.with_data],
  ].filter(([, r]) => r)) {
    log(`\nsandbox filled, ${mode} (initiates, 10 connections, ${results.window_seconds} s a size)`);
    log(
      `${pad('held', 12)}${pad('req/s', 8)}${pad('p99 ms', 8)}${pad('RSS MB', 9)}${pad('heap MB', 9)}${pad('outside MB', 12)}${pad('file MB', 9)}${pad('snap MB', 9)}${pad('restart s', 11)}read s`,
    );
    for (const row of r.rows)
      log(
        `${pad(row.size.toLocaleString('en-US'), 12)}${pad(row.initiate.rps, 8)}${pad(row.initiate.p99_ms, 8)}${pad(row.memory.rss_mb, 9)}${pad(row.memory.heap_mb, 9)}${pad(row.memory.outside_heap_mb, 12)}${pad(row.data_file_mb ?? '', 9)}${pad(row.snapshot_mb ?? '', 9)}${pad(row.restart_seconds ?? '', 11)}${row.restart_read?.seconds ?? ''}` +
          (row.restart_log_only_seconds !== undefined
            ? `  (log alone: restart ${row.restart_log_only_seconds} s, read ${row.restart_log_only_read?.seconds} s)`
            : ''),
      );
    log(`summary: ${JSON.stringify(r.summary)}`);
  }
  if (results.with_data.kill9) log(`kill -9: ${JSON.stringify(results.with_data.kill9)}`);
  if (results.prism)
    for (const [what, v] of Object.entries(results.prism))
      log(
        `${what}: sandbox ${v.sandbox.rps}/s (p99 ${v.sandbox.p99_ms} ms), Prism ${v.prism.rps}/s (p99 ${v.prism.p99_ms} ms): ${v.ratio}x`,
      );
  log('targets:');
  for (const [k, ok] of Object.entries(results.targets_met.without_data))
    log(`  ${ok ? 'met    ' : 'MISSED '} without --data: ${k}`);
  for (const [k, ok] of Object.entries(results.targets_met.with_data))
    log(`  ${ok ? 'met    ' : 'MISSED '} with --data: ${k}`);
  for (const [k, ok] of Object.entries(results.targets_met))
    if (typeof ok === 'boolean') log(`  ${ok ? 'met    ' : 'MISSED '} ${k}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  helpOnAsk(import.meta.url);
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const quick = process.argv.includes('--quick');
  const sizes = arg('--sizes')?.split(',').map(Number);
  const out = arg('--out') ?? join(root, 'bench', 'sandbox-fill.json');
  const results = await benchSandbox({
    quick,
    sizes,
    prism: !process.argv.includes('--no-prism'),
    withoutData: !process.argv.includes('--data-only'),
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  printSandbox(results);
  console.log(`\nwritten to ${out}`);
}
