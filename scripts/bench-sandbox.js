#!/usr/bin/env node
// The sandbox as a long-running shared server (docs/performance.md "The sandbox as a long-running
// server"): fills a sandbox without --data to 1,000,000 held transactions, and at each size measures
// deposit initiates (p99 and throughput, autocannon, 10 connections) and the process's memory (resident,
// and V8's heap plus what it holds outside it, after a full collection); the sandbox with --data, empty and
// at 1,000,000 held, its restart timed (scripts/bench-sandbox-store.js). Then Stoplight Prism's mock
// server on the same OpenAPI document, side by side with an empty sandbox without --data.
//
//   node scripts/bench-sandbox.js [--quick] [--sizes 0,10000,1000000] [--out FILE] [--no-prism] [--data-only]
//
// Also run by `npm run bench` (scripts/bench.js). Writes bench/sandbox-fill.json, which
// `node scripts/figures.js readme` reads for the README's figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initiates, memory, startSandbox, tokenOf } from './bench-sandbox-client.js';
import { benchStore, printStore } from './bench-sandbox-store.js';
import { prismSideBySide } from './bench-prism.js';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export const fillTargets = {
  p99: 2,
  throughput: 0.7,
  bytesPerTransaction: 1024,
  prism: 10,
};

const describeRow = (row) =>
  `${row.size.toLocaleString('en-US')} held: ${row.initiate.rps}/s, p99 ${row.initiate.p99_ms} ms, ` +
  `rss ${row.memory.rss_mb} MB (heap ${row.memory.heap_mb}, outside ${row.memory.outside_heap_mb})`;

/** One sandbox without --data filled to each size in turn. */
export async function fill({ sizes, windowSeconds, log = console.error }) {
  const sb = await startSandbox([]);
  const token = await tokenOf(sb.info.url, sb.info);
  const rows = [];
  try {
    for (const size of sizes) {
      let held = (await memory(sb.info.url)).transactions;
      if (size > held) {
        log(`bench-sandbox: filling to ${size.toLocaleString('en-US')}`);
        const filled = await initiates(sb.info.url, sb.info, token, { connections: 50, amount: size - held });
        log(`bench-sandbox:   ${filled.rps}/s while filling, ${filled.errors} errors`);
      }
      held = (await memory(sb.info.url)).transactions;
      const window = await initiates(sb.info.url, sb.info, token, {
        connections: 10,
        duration: windowSeconds,
      });
      const row = { size: held, initiate: window, memory: await memory(sb.info.url) };
      log(`bench-sandbox:   ${describeRow(row)}`);
      rows.push(row);
    }
  } finally {
    sb.child.kill('SIGINT');
    await sb.exited;
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
  const started = Date.now();
  const loadAtStart = loadavg().map((x) => +x.toFixed(1));
  const memoryRows = withoutData ? await fill({ sizes, windowSeconds, log }) : null;
  const store = await benchStore({ quick, log });
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
    // empty and at 1,000,000 held (its own rows: scripts/figures.js pairs `rows` with the sizes above)
    with_data: { rows: [], kill9: null, summary: store.summary, store },
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
    with_data: store.targets_met,
    ...(side && {
      [`≥ ${t.prism}x Prism (countries and initiate)`]:
        side.countries.ratio >= t.prism && side.initiate.ratio >= t.prism,
    }),
  };
  return results;
}

export function printSandbox(results, log = console.log) {
  const pad = (s, n) => String(s).padEnd(n);
  for (const [mode, r] of [['without --data', results.without_data]].filter(([, r]) => r)) {
    log(`\nsandbox filled, ${mode} (initiates, 10 connections, ${results.window_seconds} s a size)`);
    log(
      `${pad('held', 12)}${pad('req/s', 8)}${pad('p99 ms', 8)}${pad('RSS MB', 9)}${pad('heap MB', 9)}outside MB`,
    );
    for (const row of r.rows)
      log(
        `${pad(row.size.toLocaleString('en-US'), 12)}${pad(row.initiate.rps, 8)}${pad(row.initiate.p99_ms, 8)}${pad(row.memory.rss_mb, 9)}${pad(row.memory.heap_mb, 9)}${row.memory.outside_heap_mb}`,
      );
    log(`summary: ${JSON.stringify(r.summary)}`);
  }
  if (results.prism)
    for (const [what, v] of Object.entries(results.prism))
      log(
        `${what}: sandbox ${v.sandbox.rps}/s (p99 ${v.sandbox.p99_ms} ms), Prism ${v.prism.rps}/s (p99 ${v.prism.p99_ms} ms): ${v.ratio}x`,
      );
  log('targets:');
  for (const [k, ok] of Object.entries(results.targets_met.without_data))
    log(`  ${ok ? 'met    ' : 'MISSED '} without --data: ${k}`);
  printStore(results.with_data.store, log);
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
