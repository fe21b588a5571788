// What scripts/bench-sandbox.js and scripts/bench-prism.js share: `mpay sandbox` started as a child,
// deposit initiates with references of their own under autocannon, and the sandbox's memory.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');

/** Starts `mpay sandbox --json` (with --expose-gc); resolves once it prints its URL. */
export function startSandbox(args) {
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
export function initiateBody(info) {
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

export async function tokenOf(url, info) {
  const r = await fetch(`${url}/restapi/v1/auth/merchant/token/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ merchant_key: info.merchant_key }),
  });
  return (await r.json()).data.token;
}

/** Deposit initiates with distinct references: `duration` seconds, or `amount` requests. */
export async function initiates(url, info, token, opts) {
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

export async function memory(url) {
  const m = await (await fetch(`${url}/_sandbox/memory`)).json();
  return {
    transactions: m.transactions,
    rss_mb: +(m.rss / 2 ** 20).toFixed(1),
    // V8's heap after a full collection, and what is held outside it (the slabs, the typed columns)
    heap_mb: +(m.heapUsed / 2 ** 20).toFixed(1),
    outside_heap_mb: +((m.external + m.arrayBuffers) / 2 ** 20).toFixed(1),
  };
}
