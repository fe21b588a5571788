// Stoplight Prism's mock server beside an empty sandbox without --data (issue 35's target: at least 10x),
// for scripts/bench-sandbox.js.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { initiates, startSandbox, tokenOf } from './bench-sandbox-client.js';

// Prism is no devDependency: its ~170 packages would cost every `npm ci` (the test suite's too) for a
// comparison only this benchmark makes. The first side-by-side installs the pinned version into a folder
// of its own under .cache/, with npm, from the registry; later runs reuse it.
const prismVersion = '5.16.0';
const prismHome = fileURLToPath(new URL('../.cache/prism/', import.meta.url));

/** Prism's entry point as Node resolves it from .cache/prism/ (there, or an install above it), or undefined. */
function installedPrism() {
  try {
    const pkg = createRequire(join(prismHome, 'package.json')).resolve('@stoplight/prism-cli/package.json');
    const file = join(dirname(pkg), 'dist', 'index.js');
    statSync(file);
    return file;
  } catch {
    return undefined;
  }
}

/** Prism's entry point, installed first when missing; undefined (with the reason logged) when it cannot be. */
function prismBin(log) {
  const have = installedPrism();
  if (have) return have;
  log(`bench-sandbox: installing @stoplight/prism-cli@${prismVersion} into ${prismHome} (once)`);
  mkdirSync(prismHome, { recursive: true });
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prismHome,
      '--no-audit',
      '--no-fund',
      '--save-exact',
      `@stoplight/prism-cli@${prismVersion}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (npm.status !== 0) {
    log(`bench-sandbox: npm install of Prism failed (exit ${npm.status ?? npm.signal})`);
    return undefined;
  }
  return installedPrism();
}

/** `prism mock` on the document, on a port of its own: the child and its URL once it listens. */
async function startPrism(bin, doc) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const prism = spawn(process.execPath, [bin, 'mock', doc, '-p', String(port), '-h', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  } catch (err) {
    prism.kill('SIGINT');
    throw err;
  }
  prism.stdout.resume();
  prism.stderr.resume();
  return { prism, url: `http://127.0.0.1:${port}` };
}

/** Rounds of GET countries and deposit initiates against each server, interleaved: the medians. */
async function sideBySide(servers, info, token, { rounds, seconds, log }) {
  const runs = {};
  for (let round = 0; round < rounds; round++)
    for (const [name, url] of Object.entries(servers)) {
      const countries = await autocannon({
        url: `${url}/restapi/v1/public/countries`,
        connections: 10,
        duration: seconds,
      });
      const initiate = await initiates(url, info, token, { connections: 10, duration: seconds });
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
}

/** Stoplight Prism's mock server and an empty sandbox without --data, on the sandbox's own document. */
export async function prismSideBySide({ rounds, seconds, log = console.error }) {
  const bin = prismBin(log);
  if (!bin) {
    log('bench-sandbox: @stoplight/prism-cli is not installed: no side by side');
    return null;
  }
  const sb = await startSandbox([]);
  let prism;
  try {
    const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-prism-'));
    const doc = join(dir, 'openapi.json');
    writeFileSync(doc, await (await fetch(`${sb.info.url}/restapi/documentation/openapi.json`)).text());
    const started = await startPrism(bin, doc);
    prism = started.prism;
    const token = await tokenOf(sb.info.url, sb.info);
    return await sideBySide({ sandbox: sb.info.url, prism: started.url }, sb.info, token, {
      rounds,
      seconds,
      log,
    });
  } finally {
    prism?.kill('SIGINT');
    sb.child.kill('SIGINT');
  }
}
