// Input is bounded as a whole: a support bundle's unpacked size and each entry (read as a stream, stopped
// at the bound, whatever the bundle claims), a trace, a scenario file, a batch file's row. Each is exit 2
// naming its bound, with nothing sent. The bounds are passed smaller here; what a gigabyte-unpacked bundle
// costs under the real ones is measured by `npm run bench` (docs/performance.md).
import { closeSync, ftruncateSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import * as tar from 'tar';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inputBounds, type InputBounds } from '../src/api/input-bounds.js';
import { readRows } from '../src/flows/batch/batch-file.js';
import { readTraceFile } from '../src/commands/shared/trace-file.js';
import { cliEnv, file, requestCounts, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const small: InputBounds = {
  bundleBytes: 100 * 1024,
  bundleEntryBytes: 60 * 1024,
  traceBytes: 64 * 1024,
  scenarioBytes: 64 * 1024,
  rowBytes: 1024,
};

const harText = (pad: number) =>
  JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [] } }) +
  ' '.repeat(pad);

/** A .tar.gz of the given files (name → text). */
async function bundle(files: Record<string, string>): Promise<string> {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const out = join(tempDir(), 'b.tar.gz');
  await tar.create({ gzip: true, file: out, cwd: dir, portable: true }, Object.keys(files));
  return out;
}

it("a bundle whose entries together pass the bundle's bound is refused, naming it, though each entry is under its own", async () => {
  const b = await bundle({
    'trace-1.har': harText(40_000),
    'trace-2.har': harText(40_000),
    'trace-3.har': harText(40_000),
  });
  await expect(readTraceFile(b, small)).rejects.toThrow(/unpacked, is larger than mpay reads \(100 KB\)/);
  // under the bound, the same traces read
  await expect(readTraceFile(b, { ...small, bundleBytes: 200 * 1024 })).resolves.toMatchObject({ calls: [] });
});

it('an entry over its bound is refused, a file that is not a trace too (its bytes are counted all the same)', async () => {
  const b = await bundle({ 'notes.txt': 'x'.repeat(70_000), 'trace-1.har': harText(10) });
  await expect(readTraceFile(b, small)).rejects.toThrow(
    /the entry notes\.txt of the bundle .* is larger than mpay reads \(60 KB\)/,
  );
});

it('an entry is refused by the size its header claims, before it is unpacked; what follows is never read', async () => {
  const b = await bundle({ 'trace-1.har': harText(70_000) });
  // the bundle cut short after its first block: reading past the header would find it truncated
  const cut = join(tempDir(), 'cut.tar.gz');
  const raw = gunzipSync(readFileSync(b));
  writeFileSync(cut, gzipSync(raw.subarray(0, 1024)));
  await expect(readTraceFile(cut, small)).rejects.toThrow(
    /the entry trace-1\.har .* larger than mpay reads \(60 KB\)/,
  );
});

it('mpay replay of a trace, and mpay run of a scenario, over their bounds: exit 2 naming them, nothing sent, nothing read', async () => {
  const dir = tempDir();
  const env = cliEnv(sb, dir);
  // sparse files: their size is on the disk's books only, and mpay must refuse them before reading any
  const sparse = (name: string, bytes: number) => {
    const p = join(dir, name);
    const fd = openSync(p, 'w');
    ftruncateSync(fd, bytes);
    closeSync(fd);
    return p;
  };
  const before = await requestCounts(sb);
  const trace = sparse('big.har', inputBounds.traceBytes + 1);
  const r = await mpay(['replay', trace], { env });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/the trace .*big\.har \(67108865 bytes\) is larger than mpay reads \(64 MB\)/);
  const scenario = sparse('big.yaml', inputBounds.scenarioBytes + 1);
  const s = await mpay(['run', scenario], { env });
  expect(s.code, s.stderr).toBe(2);
  expect(s.stderr).toMatch(/the scenario .*big\.yaml .* is larger than mpay reads \(16 MB\)/);
  expect(await requestCounts(sb)).toEqual(before);
});

it("a batch file's row over its bound: a CSV record, an NDJSON line, refused naming it", async () => {
  const csv = file('rows.csv', `currency,country,amount\nGHS,GH,10\nGHS,GH,"${'9'.repeat(5000)}\n`);
  const rows = async (path: string, format: 'csv' | 'ndjson') => {
    const out = [];
    for await (const r of readRows(path, format, ['currency', 'country', 'amount'], small.rowBytes))
      out.push(r);
    return out;
  };
  await expect(rows(csv, 'csv')).rejects.toThrow(
    /the record at line 3 of the batch file is larger than mpay reads \(1 KB\)/,
  );
  const nd = file('rows.ndjson', `{"currency":"GHS"}\n{"currency":"${'G'.repeat(5000)}"}\n`);
  await expect(rows(nd, 'ndjson')).rejects.toThrow(
    /line 2 of the batch file is larger than mpay reads \(1 KB\)/,
  );
  // under the bound, the same files read
  const ok = file('ok.ndjson', '{"currency":"GHS"}\n{"currency":"USD"}\n');
  expect(await rows(ok, 'ndjson')).toHaveLength(2);
});
