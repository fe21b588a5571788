// npm run bench (or alone: node scripts/bench-inputs.js [--quick]): what mpay's bounded reading of its
// inputs costs in memory (issue 46). Two figures, each the peak RSS of one `mpay` process:
// - a support bundle that unpacks to a gigabyte (64 traces of 16 MB of spaces, a few MB packed) given to
//   `mpay replay --dry-run`: refused (exit 2) at the bundle's bound, the target under 400 MB;
// - a scenario of many GET steps (100,000; --quick 5,000) run with --ndjson and a JUnit report: the
//   target under 250 MB, whatever the number of steps.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { helpOnAsk } from './script-help.js';

export const inputTargets = { bundleRssMb: 400, scenarioRssMb: 250 };

const rssHook = `data:text/javascript,${encodeURIComponent("process.on('exit', () => process.stderr.write('\\nmpay-bench-rss ' + process.resourceUsage().maxRSS + '\\n'))")}`;

/** One mpay process: its exit code, wall time and peak RSS in MB. */
function measured(bin, args, env) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', rssHook, bin, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const kb = Number(/mpay-bench-rss (\d+)/.exec(r.stderr)?.[1]);
  return {
    status: r.status,
    seconds: +(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1),
    peak_rss_mb: Number.isFinite(kb) ? +(kb / 1024).toFixed(1) : null,
    stderr: r.stderr,
  };
}

/** A ustar header of a regular file. */
function header(name, size) {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000600\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** A .tar.gz of `entries` traces of `size` bytes of spaces each, written as a stream. */
async function bomb(file, entries, size) {
  const block = Buffer.alloc(2 ** 20, 0x20);
  async function* tarStream() {
    for (let i = 1; i <= entries; i++) {
      yield header(`trace-${i}.har`, size);
      for (let left = size; left > 0; left -= block.length)
        yield left >= block.length ? block : block.subarray(0, left);
      if (size % 512) yield Buffer.alloc(512 - (size % 512));
    }
    yield Buffer.alloc(1024);
  }
  await pipeline(Readable.from(tarStream()), createGzip({ level: 1 }), createWriteStream(file));
}

export async function benchInputs({ bin, env, quick }) {
  const dir = mkdtempSync(join(tmpdir(), 'mpay-bench-inputs-'));
  // 64 × (16 MB - 1 KB): each under the bound of an entry, a gigabyte together
  const bundle = join(dir, 'bomb.tar.gz');
  await bomb(bundle, 64, 16 * 2 ** 20 - 1024);
  const refused = measured(bin, ['replay', bundle, '--dry-run'], {
    ...env,
    MPAY_CONFIG_DIR: join(dir, 'cfg-b'),
  });
  if (refused.status !== 2)
    throw new Error(`replay of the bundle exited ${refused.status}: ${refused.stderr}`);
  const steps = quick ? 5_000 : 100_000;
  const lines = ['name: many reads', 'steps:'];
  for (let i = 1; i <= steps; i++)
    lines.push(`  - name: read ${i}`, '    request: { method: GET, path: /merchant/currencies }');
  const scenario = join(dir, 'many.yaml');
  writeFileSync(scenario, `${lines.join('\n')}\n`);
  const ran = measured(bin, ['run', scenario, '--ndjson', '--report', `junit=${join(dir, 'r.xml')}`], {
    ...env,
    MPAY_CONFIG_DIR: join(dir, 'cfg-s'),
  });
  if (ran.status !== 0)
    throw new Error(`the scenario of ${steps} steps exited ${ran.status}: ${ran.stderr.slice(-2000)}`);
  return {
    bundle: {
      unpacked_mb: 1024,
      packed_mb: null,
      exit: refused.status,
      seconds: refused.seconds,
      peak_rss_mb: refused.peak_rss_mb,
    },
    scenario: { steps, seconds: ran.seconds, peak_rss_mb: ran.peak_rss_mb },
  };
}

/**
 * `node scripts/bench-inputs.js [--quick]`: these two figures alone, with their pass/fail lines (the whole
 * `npm run bench` measures them too, among its targets), against a sandbox of its own.
 */
async function main() {
  helpOnAsk(import.meta.url);
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const info = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited ${code}`)));
  });
  try {
    const env = {
      ...process.env,
      MPAY_BASE_URL: info.url,
      MPAY_MERCHANT_KEY: info.merchant_key,
      MPAY_SITE_ID: info.site_id,
      MPAY_API_KEY: info.api_key,
    };
    const quick = process.argv.includes('--quick');
    const r = await benchInputs({ bin, env, quick });
    console.log(JSON.stringify(r, null, 2));
    const checks = {
      [`a gigabyte-unpacked bundle refused under ${inputTargets.bundleRssMb} MB of RSS`]:
        r.bundle.exit === 2 && (r.bundle.peak_rss_mb ?? Infinity) < inputTargets.bundleRssMb,
      [`mpay run of ${r.scenario.steps} steps under ${inputTargets.scenarioRssMb} MB of RSS`]:
        (r.scenario.peak_rss_mb ?? Infinity) < inputTargets.scenarioRssMb,
    };
    for (const [k, ok] of Object.entries(checks)) console.log(`  ${ok ? 'met    ' : 'MISSED '} ${k}`);
    if (Object.values(checks).some((ok) => !ok)) process.exitCode = 1;
  } finally {
    child.kill('SIGINT');
  }
}

if (process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href)
  await main();
