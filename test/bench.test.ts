// The benchmark runs (in quick mode) and writes its figures; the figures themselves are judged by
// `npm run bench` on a quiet machine, never by a test.
import { expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from './helpers.js';

it('npm run bench -- --quick measures every figure and writes bench/results.json', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(root, 'scripts', 'bench.js'), '--quick'],
    { timeout: 120_000 },
  );
  expect(stdout).toMatch(/written to bench\/results.json/);
  const r = JSON.parse(readFileSync(join(root, 'bench', 'results.json'), 'utf8'));
  expect(r.quick).toBe(true);
  for (const k of [
    'node -e 0',
    'mpay --version',
    'mpay --help',
    'mpay deposit --help',
    'mpay countries --json',
    'mpay currencies --merchant --json',
  ]) {
    expect(r.startup_ms[k].median, k).toBeGreaterThan(0);
    expect(r.startup_ratio_to_node[k], k).toBeGreaterThan(0);
    expect(r.peak_rss_mb[k], k).toBeGreaterThan(0);
  }
  for (const k of ['GET /public/currencies', 'GET /merchant/currencies', 'POST /payments/initiate']) {
    expect(r.sandbox[k].rps, k).toBeGreaterThan(0);
    expect(r.sandbox[k].errors, k).toBe(0);
    expect(r.sandbox[k].ratio_to_bare_same_bytes, k).toBeGreaterThan(0);
  }
  expect(Object.keys(r.targets_met)).toHaveLength(6);
}, 180_000);
