#!/usr/bin/env node
// node scripts/bench-signal.js [--rounds N]: how long mpay takes to end at a second signal, where the first
// only asked it to wind down and the work it waits on never finishes (target: within a second;
// docs/performance.md, "Signals"). Measured from the second signal to the process's close, on the real
// bin/run.js: a batch whose initiates a sandbox holds for an hour (SIGINT, then SIGINT or SIGTERM), and that
// sandbox itself, closing on the requests it holds. Also part of `npm run bench`.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
export const signalTargetMs = 1000;

/** A process of bin/run.js, with a wait for a line of its output and its close (with its time). */
function mpay(args, env, input) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = [];
  for (const s of [child.stdout, child.stderr])
    s.on('data', (d) => {
      out += d;
      for (const w of [...waiters]) w();
    });
  child.stdin.on('error', () => {});
  child.stdin.end(input ?? '');
  const closed = new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, at: performance.now() })),
  );
  const printed = (re) =>
    new Promise((resolve) => {
      const check = () => {
        const m = re.exec(out);
        if (!m) return;
        waiters.splice(waiters.indexOf(check), 1);
        resolve(m);
      };
      waiters.push(check);
      check();
    });
  return { child, closed, printed, output: () => out };
}

/** Resolves once `check` is true, asking every 20 ms; fails past `ms`, naming `what`. */
async function until(what, check, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`bench-signal: ${what} did not come within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rows = (n, amount) =>
  [
    'currency,country,amount,first_name,phone,email,gateway',
    ...Array.from(
      { length: n },
      (_, i) => `GHS,GH,${amount + i},Kofi,+2332012398${String(i).padStart(2, '0')},kofi${i}@example.org,1`,
    ),
  ].join('\n');

export async function benchSignal(rounds = 5) {
  // Every initiate is held for an hour: a batch's rows in flight end only by the second signal.
  const sandbox = mpay(
    [
      'sandbox',
      '--port',
      '0',
      '--json',
      '--fault',
      'slow',
      '--fault-path',
      '/payments/initiate',
      '--fault-rate',
      '1',
      '--slow-ms',
      '3600000',
    ],
    {},
  );
  const url = JSON.parse((await sandbox.printed(/^\{.*\}\n/m))[0]).url;
  const initiates = async () =>
    (await (await fetch(`${url}/_sandbox/requests`)).json())['POST /payments/initiate'] ?? 0;
  const batch = { SIGINT: [], SIGTERM: [] };
  for (let i = 0; i < rounds; i++)
    for (const second of ['SIGINT', 'SIGTERM']) {
      const before = await initiates();
      const m = mpay(
        ['deposit', 'batch', '-', '--concurrency', '2', '--json'],
        {
          MPAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mpay-bench-signal-')),
          MPAY_BASE_URL: url,
          MPAY_MERCHANT_KEY: 'mk_sandbox_demo',
          MPAY_SITE_ID: '1',
          MPAY_API_KEY: 'ak_sandbox_demo',
        },
        rows(4, 100 + i * 10 + (second === 'SIGTERM' ? 5 : 0)),
      );
      await until('two initiates in flight', async () => (await initiates()) >= before + 2);
      m.child.kill('SIGINT');
      await m.printed(/stopping: no new rows start/);
      const t = performance.now();
      m.child.kill(second);
      const end = await m.closed;
      if (end.code !== (second === 'SIGTERM' ? 143 : 130))
        throw new Error(`bench-signal: the batch ended ${end.code} at ${second}: ${m.output()}`);
      batch[second].push(end.at - t);
    }
  // The sandbox itself: its close waits for the requests it holds; the second SIGINT ends it.
  sandbox.child.kill('SIGINT');
  await sandbox.printed(/stop|clos/i);
  const t = performance.now();
  sandbox.child.kill('SIGINT');
  const sandboxEnd = (await sandbox.closed).at - t;
  const r = (x) => Math.round(x);
  const stats = (xs) => ({
    median: r([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]),
    max: r(Math.max(...xs)),
  });
  return {
    rounds,
    batch_second_sigint_ms: stats(batch.SIGINT),
    batch_second_sigterm_ms: stats(batch.SIGTERM),
    sandbox_second_sigint_ms: r(sandboxEnd),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  helpOnAsk(import.meta.url);
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
  const res = await benchSignal(Number(values.rounds));
  console.log(JSON.stringify(res, null, 2));
  const worst = Math.max(
    res.batch_second_sigint_ms.max,
    res.batch_second_sigterm_ms.max,
    res.sandbox_second_sigint_ms,
  );
  console.log(
    `a second signal ends mpay in ${worst} ms at most over ${res.rounds} rounds (target ≤ ${signalTargetMs} ms): ${worst <= signalTargetMs ? 'met' : 'MISSED'}`,
  );
}
