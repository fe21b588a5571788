#!/usr/bin/env node
// The sandbox with --data (its state in SQLite, src/sandbox/tx-store.ts) at 1,000,000 held transactions
// against an empty one (docs/performance.md, "The sandbox as a long-running server"): deposit initiates
// (p99 and throughput, autocannon, 10 connections), resident memory after a full collection, and the time a
// restart takes to answer an initiate. The ratios and the restart are judged on rounds in turn: the empty
// file and the full one started alternately, each timed to its first answered initiate and given a window
// of initiates, medians of each (on a machine others share, one window at each size minutes apart measured
// the load more than the data). The 1,000,000 rows are written straight into the database through
// SQL while the sandbox is stopped (through the API, one committed and synced transaction each, the fill
// would take the better part of an hour); they are rows as the sandbox writes them.
//
//   node scripts/bench-sandbox-store.js [--quick] [--held N] [--out FILE]
//
// Also run by `npm run bench` (scripts/bench-sandbox.js).
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import Database from 'libsql';
import { initiateBody, initiates, memory, startSandbox, tokenOf } from './bench-sandbox-client.js';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export const storeTargets = { p99: 2, throughput: 0.7, bytesPerTransaction: 1024, restartSeconds: 1 };

/** Starts the sandbox on `file` and times it until an initiate is answered 200. */
async function timedStart(file) {
  const sb = await startSandbox(['--data', file]);
  const token = await tokenOf(sb.info.url, sb.info);
  const r = await fetch(`${sb.info.url}/restapi/v1/payments/initiate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: initiateBody(sb.info),
  });
  if (r.status !== 200) throw new Error(`initiate after a start answered ${r.status}`);
  // the sandbox's own line: how long its open of the database took (the rest of the start is Node's)
  const opened = /opened .*: \d+ transactions, in ([\d.]+) s/.exec(sb.stderr());
  return {
    sb,
    token,
    restart_seconds: +((performance.now() - sb.t0) / 1000).toFixed(3),
    open_seconds: opened ? +opened[1] : null,
  };
}

async function stop(sb) {
  sb.child.kill('SIGINT');
  await sb.exited;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Starts of the empty file and the full one in turn (the machine's load falls on both alike), each timed to
 * its first answered initiate (with the sandbox's own line for its open of the database), then a window of
 * initiates: what grows with the data is the difference between two medians taken under the same load.
 */
async function rounds(emptyFile, fullFile, n, windowSeconds) {
  const out = { empty: [], full: [] };
  // and `node -e 0` before each round: what a bare Node start costs at the machine's load of the moment
  const node = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    node.push(+((performance.now() - t0) / 1000).toFixed(3));
    for (const [k, f] of [
      ['empty', emptyFile],
      ['full', fullFile],
    ]) {
      const run = await timedStart(f);
      try {
        const w = await initiates(run.sb.info.url, run.sb.info, run.token, {
          connections: 10,
          duration: windowSeconds,
        });
        out[k].push({ ...w, restart_seconds: run.restart_seconds, open_seconds: run.open_seconds });
      } finally {
        await stop(run.sb);
      }
    }
  }
  const of = (rows) => ({
    median_seconds: median(rows.map((r) => r.restart_seconds)),
    median_open_seconds: median(rows.map((r) => r.open_seconds)),
    median_rps: median(rows.map((r) => r.rps)),
    median_p99_ms: median(rows.map((r) => r.p99_ms)),
    errors: rows.reduce((sum, r) => sum + r.errors, 0),
    all_seconds: rows.map((r) => r.restart_seconds),
  });
  return {
    rounds: n,
    window_seconds: windowSeconds,
    node_e0_median_seconds: median(node),
    empty: of(out.empty),
    full: of(out.full),
  };
}

/** One measured window at the size the file holds: initiates, then memory. */
async function measure(file, windowSeconds) {
  const run = await timedStart(file);
  try {
    const initiate = await initiates(run.sb.info.url, run.sb.info, run.token, {
      connections: 10,
      duration: windowSeconds,
    });
    const mem = await memory(run.sb.info.url);
    return {
      size: mem.transactions,
      restart_seconds: run.restart_seconds,
      open_seconds: run.open_seconds,
      initiate,
      memory: mem,
    };
  } finally {
    await stop(run.sb);
  }
}

/** Adds `n` deposit rows to the sandbox's database, as its initiates write them, in one transaction. */
function fillThroughSql(file, n, log) {
  const started = performance.now();
  const db = new Database(file);
  const insert = db.prepare(
    `INSERT INTO tx(hash_token, uuid, transaction_id, kind, status, reference, amount, currency_code, country_code,
       first_name, last_name, phone, email, created_at) VALUES (?, ?, ?, 'deposit', 'initiated', ?, 10, 'GHS', 'GH',
       'Bench', 'Filler', '+233201234567', 'bench.filler@example.com', ?)`,
  );
  const tag = Date.now().toString(36);
  db.exec('BEGIN');
  for (let i = 0; i < n; i++)
    insert.run(
      randomBytes(32).toString('hex'),
      randomUUID(),
      `TXN${tag.toUpperCase()}${i.toString(16).toUpperCase()}`,
      `sql-fill-${tag}-${i}`,
      new Date().toISOString(),
    );
  db.exec('COMMIT');
  db.exec('PRAGMA journal_mode = DELETE');
  db.close();
  log(
    `bench-sandbox-store: ${n.toLocaleString('en-US')} rows written through SQL in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

export async function benchStore({ quick = false, held, log = console.error } = {}) {
  held ??= quick ? 50_000 : 1_000_000;
  const windowSeconds = quick ? 2 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-store-'));
  const file = join(dir, 'sandbox.db');
  const emptyFile = join(dir, 'empty.db');
  const loadAtStart = loadavg().map((x) => +x.toFixed(1));
  try {
    const empty = await measure(file, windowSeconds);
    log(`bench-sandbox-store: empty: ${JSON.stringify(empty.initiate)}, rss ${empty.memory.rss_mb} MB`);
    // the empty file kept (closed, its log folded in) for the restarts side by side with the full one
    copyFileSync(file, emptyFile);
    fillThroughSql(file, held, log);
    const full = await measure(file, windowSeconds);
    log(
      `bench-sandbox-store: ${full.size.toLocaleString('en-US')} held: ${JSON.stringify(full.initiate)}, rss ${full.memory.rss_mb} MB, restart ${full.restart_seconds} s`,
    );
    const restart = await rounds(emptyFile, file, quick ? 3 : 5, quick ? 1 : 3);
    log(`bench-sandbox-store: in turn, medians of ${restart.rounds}: ${JSON.stringify(restart)}`);
    const added = full.size - empty.size;
    const summary = {
      held: full.size,
      file_mb: +(statSync(file).size / 2 ** 20).toFixed(1),
      // the medians of the windows in turn (one window at each size, minutes apart, measured the load)
      p99_ratio: +(restart.full.median_p99_ms / Math.max(restart.empty.median_p99_ms, 1)).toFixed(2),
      throughput_ratio: +(restart.full.median_rps / restart.empty.median_rps).toFixed(2),
      rss_bytes_per_transaction: Math.round(((full.memory.rss_mb - empty.memory.rss_mb) * 2 ** 20) / added),
      restart_seconds: restart.full.median_seconds,
      restart_seconds_empty: restart.empty.median_seconds,
      open_seconds: restart.full.median_open_seconds,
      open_seconds_empty: restart.empty.median_open_seconds,
    };
    const t = storeTargets;
    return {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        node: process.version,
        load_average_at_start: loadAtStart,
        load_average_at_end: loadavg().map((x) => +x.toFixed(1)),
      },
      window_seconds: windowSeconds,
      empty,
      full,
      restart,
      summary,
      targets_met: {
        [`initiate p99 at ${full.size.toLocaleString('en-US')} ≤ ${t.p99}x empty`]:
          summary.p99_ratio <= t.p99,
        [`throughput ≥ ${t.throughput}x empty`]: summary.throughput_ratio >= t.throughput,
        [`≤ ${t.bytesPerTransaction} bytes resident a held transaction`]:
          summary.rss_bytes_per_transaction <= t.bytesPerTransaction,
        [`a restart answers within ${t.restartSeconds} s (median of ${restart.rounds})`]:
          summary.restart_seconds <= t.restartSeconds,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printStore(results, log = console.log) {
  log(
    `\nsandbox --data (SQLite), empty and at ${results.summary.held.toLocaleString('en-US')} held (initiates, 10 connections, ${results.window_seconds} s each)`,
  );
  for (const r of [results.empty, results.full])
    log(
      `  ${r.size.toLocaleString('en-US')} held: ${r.initiate.rps}/s, p99 ${r.initiate.p99_ms} ms, rss ${r.memory.rss_mb} MB, restart ${r.restart_seconds} s (the database's open ${r.open_seconds} s)`,
    );
  const r = results.restart;
  log(
    `  ${r.rounds} rounds in turn, medians: a start to its first answered initiate, then ${r.window_seconds} s of initiates (node -e 0: ${r.node_e0_median_seconds} s)`,
  );
  for (const [k, v] of Object.entries({
    empty: r.empty,
    [results.summary.held.toLocaleString('en-US')]: r.full,
  }))
    log(
      `    ${k}: start ${v.median_seconds} s (the database's open ${v.median_open_seconds} s), ${v.median_rps}/s, p99 ${v.median_p99_ms} ms, ${v.errors} errors`,
    );
  log(`summary: ${JSON.stringify(results.summary)}`);
  for (const [k, ok] of Object.entries(results.targets_met))
    log(`  ${ok ? 'met    ' : 'MISSED '} with --data: ${k}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  helpOnAsk(import.meta.url);
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const results = await benchStore({
    quick: process.argv.includes('--quick'),
    held: arg('--held') ? Number(arg('--held')) : undefined,
  });
  const out = arg('--out') ?? join(root, 'bench', 'sandbox-store.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  printStore(results);
  console.log(`\nwritten to ${out}`);
}
