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
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');

export const fillTargets = {
  p99: 2,
  throughput: 0.7,
  bytesPerTransaction: 1024,
  restartSeconds: 2,
  prism: 10,
};

/** Starts `mpay sandbox --json` (with --expose-gc); resolves once it prints its URL. */
function startSandbox(args) {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--expose-gc', bin, 'sandbox', '--port', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, info: JSON.parse(line), exited, t0, stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${err}`)));
  });
}

let seq = 0;
const tag = `${process.pid}-${Date.now().toString(36)}`;
function initiateBody(info) {
  return JSON.stringify({
    merchant_key: info.merchant_key,
    site_id: 1,
    api_key: info.api_key,
    currency_code: 'GHS',
    country_code: 'GH',
    customer_first_name: 'Bench',
    customer_last_name: 'Filler',
    customer_phone: '+233201234567',
    customer_email: 'bench.filler@example.com',
    customer_transaction_id: `fill-${tag}-${++seq}`,
    amount: '10',
  });
}

async function tokenOf(url, info) {
  const r = await fetch(`${url}/restapi/v1/auth/merchant/token/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ merchant_key: info.merchant_key }),
  });
  return (await r.json()).data.token;
}

/** Deposit initiates with distinct references: `duration` seconds, or `amount` requests. */
async function initiates(url, info, token, opts) {
  const r = await autocannon({
    url: `${url}/restapi/v1/payments/initiate`,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: initiateBody(info) }) }],
    pipelining: 1,
    ...opts,
  });
  return {
    rps: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    requests: r.requests.total,
    errors: r.errors + r.non2xx + r.timeouts,
  };
}

async function memory(url) {
  const m = await (await fetch(`${url}/_sandbox/memory`)).json();
  return {
    transactions: m.transactions,
    rss_mb: +(m.rss / 2 ** 20).toFixed(1),
    // V8's heap after a full collection, and what is held outside it (the slabs, the typed columns)
    heap_mb: +(m.heapUsed / 2 ** 20).toFixed(1),
    outside_heap_mb: +((m.external + m.arrayBuffers) / 2 ** 20).toFixed(1),
  };
}

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
  return { sb, token, seconds: +((performance.now() - sb.t0) / 1000).toFixed(2) };
}

/** One sandbox filled to each size in turn; with `dataFile`, restarted at each size. */
export async function fill({ sizes, windowSeconds, dataFile, log = console.error }) {
  const args = dataFile ? ['--data', dataFile] : [];
  let { sb, token } = await timedStart(args);
  const rows = [];
  try {
    for (const size of sizes) {
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
      const mem = await memory(sb.info.url);
      const row = { size: held, initiate: window, memory: mem };
      if (dataFile) {
        row.data_file_mb = +(statSync(dataFile).size / 2 ** 20).toFixed(1);
        sb.child.kill('SIGINT');
        await sb.exited;
        const again = await timedStart(args);
        ({ sb, token } = again);
        row.restart_seconds = again.seconds;
      }
      log(
        `bench-sandbox:   ${held.toLocaleString('en-US')} held: ${window.rps}/s, p99 ${window.p99_ms} ms, ` +
          `rss ${mem.rss_mb} MB (heap ${mem.heap_mb}, outside ${mem.outside_heap_mb})` +
          (dataFile ? `, file ${row.data_file_mb} MB, restart ${row.restart_seconds} s` : ''),
      );
      rows.push(row);
    }
    if (dataFile) {
      // A kill -9 with initiates arriving: what the file held, read back, and how long that took.
      const killed = sb;
      const start = (await memory(killed.info.url)).transactions;
      const load = initiates(killed.info.url, killed.info, token, { connections: 10, duration: 3 }).catch(
        () => null,
      );
      await new Promise((r) => setTimeout(r, 1500));
      killed.child.kill('SIGKILL');
      await killed.exited;
      const burst = await load;
      const again = await timedStart(args);
      sb = again.sb;
      token = again.token;
      // less the initiate timedStart sent
      const readBack = (await memory(sb.info.url)).transactions - 1;
      const answered = start + (burst ? burst.requests - burst.errors : 0);
      rows.kill9 = {
        answered_200_before_kill: answered,
        read_back: readBack,
        lost: answered - readBack,
        restart_seconds: again.seconds,
      };
      log(`bench-sandbox:   kill -9 in a burst: ${JSON.stringify(rows.kill9)}`);
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
    restart_seconds: full.restart_seconds ?? null,
  };
}

/** Stoplight Prism's mock server and an empty sandbox without --data, on the sandbox's own document. */
export async function prismSideBySide({ rounds, seconds, log = console.error }) {
  const sb = await startSandbox([]);
  const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-prism-'));
  const doc = join(dir, 'openapi.json');
  writeFileSync(doc, await (await fetch(`${sb.info.url}/restapi/documentation/openapi.json`)).text());
  let prismBin;
  try {
    prismBin = join(
      dirname(fileURLToPath(import.meta.resolve('@stoplight/prism-cli/package.json'))),
      'dist',
      'index.js',
    );
    statSync(prismBin);
  } catch {
    sb.child.kill('SIGINT');
    log('bench-sandbox: @stoplight/prism-cli is not installed: no side by side');
    return null;
  }
  const port = 20000 + Math.floor(Math.random() * 20000);
  const prism = spawn(process.execPath, [prismBin, 'mock', doc, '-p', String(port), '-h', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prismUrl = `http://127.0.0.1:${port}`;
  try {
    await new Promise((resolve, reject) => {
      let out = '';
      const seen = (d) => {
        out += d;
        if (/Prism is listening/.test(out)) resolve();
      };
      prism.stdout.on('data', seen);
      prism.stderr.on('data', seen);
      prism.on('exit', (code) => reject(new Error(`prism exited ${code}: ${out}`)));
    });
    prism.stdout.resume();
    prism.stderr.resume();
    const token = await tokenOf(sb.info.url, sb.info);
    const servers = { sandbox: sb.info.url, prism: prismUrl };
    const runs = {};
    for (let round = 0; round < rounds; round++)
      for (const [name, url] of Object.entries(servers)) {
        const countries = await autocannon({
          url: `${url}/restapi/v1/public/countries`,
          connections: 10,
          duration: seconds,
        });
        const initiate = await initiates(url, sb.info, token, { connections: 10, duration: seconds });
        (runs[name] ??= []).push({
          countries: {
            rps: Math.round(countries.requests.average),
            p99_ms: countries.latency.p99,
            errors: countries.errors + countries.non2xx,
          },
          initiate,
        });
      }
    const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const of = (name, what) => ({
      rps: med(runs[name].map((r) => r[what].rps)),
      p99_ms: med(runs[name].map((r) => r[what].p99_ms)),
      errors: runs[name].reduce((n, r) => n + r[what].errors, 0),
    });
    const result = {};
    for (const what of ['countries', 'initiate']) {
      const s = of('sandbox', what);
      const p = of('prism', what);
      result[what] = { sandbox: s, prism: p, ratio: +(s.rps / p.rps).toFixed(1) };
      log(
        `bench-sandbox: ${what}: sandbox ${s.rps}/s p99 ${s.p99_ms} ms, prism ${p.rps}/s p99 ${p.p99_ms} ms: ${result[what].ratio}x`,
      );
    }
    return result;
  } finally {
    prism.kill('SIGINT');
    sb.child.kill('SIGINT');
  }
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
      load_average_at_start: loadavg().map((x) => +x.toFixed(1)),
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
      `${pad('held', 12)}${pad('req/s', 8)}${pad('p99 ms', 8)}${pad('RSS MB', 9)}${pad('heap MB', 9)}${pad('outside MB', 12)}${pad('file MB', 9)}restart s`,
    );
    for (const row of r.rows)
      log(
        `${pad(row.size.toLocaleString('en-US'), 12)}${pad(row.initiate.rps, 8)}${pad(row.initiate.p99_ms, 8)}${pad(row.memory.rss_mb, 9)}${pad(row.memory.heap_mb, 9)}${pad(row.memory.outside_heap_mb, 12)}${pad(row.data_file_mb ?? '', 9)}${row.restart_seconds ?? ''}`,
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
