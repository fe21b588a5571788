// No stray copies of customers' data: a batch read from stdin keeps its rows (0600) in mpay's own
// journal/spool/ while it runs, never in the temporary folder, and leaves none when it ends: done, refused,
// interrupted (SIGINT, SIGTERM), its reader gone (EPIPE); a run killed outright leaves its file, private, for the next batch from
// stdin to remove.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bin, cliEnv, loopbackServer, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

// The tests run at once: each has folders of its own, rows of its own (a batch's references come from its
// rows), and a silent server of its own.
let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});

/**
 * A server that takes each request and never answers (a batch waits there, its rows spooled), and the
 * moment the first request arrives; closed as its test ends.
 */
async function silentServer(onTestFinished: (fn: () => Promise<void>) => void) {
  let came!: () => void;
  const arrived = new Promise<void>((r) => (came = r));
  const server = await loopbackServer(() => came());
  onTestFinished(() => server.close());
  return { url: server.url, arrived };
}

const marker = 'spool.marker.customer@example.com';
const rows = [
  'currency,country,amount,first_name,last_name,phone,email,gateway',
  `GHS,GH,10,Ama,Mensah,+233201234567,${marker},1`,
].join('\n');

/** `mpay deposit batch -` with the rows on stdin, a temporary folder of its own (stdout: a pipe, or a file's fd). */
function batch(cfg: string, tmp: string, url: string, input = rows, stdout: 'pipe' | number = 'pipe') {
  const child = spawn(process.execPath, [bin, 'deposit', 'batch', '-', '--json'], {
    env: { ...process.env, ...cliEnv({ url }, cfg), TMPDIR: tmp, NO_COLOR: '1', CI: undefined },
    stdio: ['pipe', stdout, 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout?.on('data', (d) => (stderr += d));
  child.stdin!.end(input);
  const done = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, done };
}

/** Every file under a folder that holds the marker (the journal's own file aside). */
function copies(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!/journal\.db(-wal|-shm)?$/.test(p) && readFileSync(p, 'utf8').includes(marker)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

const spool = (cfg: string) => join(cfg, 'journal', 'spool');

it.concurrent(
  'done or refused: no copy of the rows is left, in the temporary folder or anywhere else',
  async () => {
    const cfg = tempDir();
    const tmp = tempDir();
    const done = await batch(cfg, tmp, sb.url).done;
    expect(done.code, done.stderr).toBe(0);
    expect(copies(tmp)).toEqual([]);
    expect(copies(cfg)).toEqual([]);
    const refused = await batch(cfg, tmp, sb.url, `${rows}\nGHS,GH,-5,Ama,,+233201234567,${marker},1`).done;
    expect(refused.code, refused.stderr).toBe(2);
    expect(copies(tmp)).toEqual([]);
    expect(copies(cfg)).toEqual([]);
  },
);

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  it.concurrent(
    `${signal} while the batch waits: its spooled rows are removed as it ends`,
    async ({ onTestFinished }) => {
      const cfg = tempDir();
      const tmp = tempDir();
      const silent = await silentServer(onTestFinished);
      const run = batch(cfg, tmp, silent.url);
      await silent.arrived;
      // While it runs the rows are in mpay's own folder, private.
      const [held] = copies(cfg);
      expect(held).toMatch(/journal\/spool\/stdin-\d+-/);
      expect(statSync(held!).mode & 0o777).toBe(0o600);
      expect(statSync(spool(cfg)).mode & 0o777).toBe(0o700);
      run.child.kill(signal);
      const end = await run.done;
      expect(end.code).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(copies(cfg)).toEqual([]);
      expect(copies(tmp)).toEqual([]);
    },
  );

it.concurrent(
  'a reader of stdout gone (mpay … | head -1): the run ends quietly, its spooled rows removed',
  async () => {
    const cfg = tempDir();
    const tmp = tempDir();
    const run = batch(cfg, tmp, sb.url, rows.replace(',10,', ',14,'));
    // The reader goes before mpay writes anything: its first result line meets EPIPE.
    run.child.stdout!.destroy();
    const end = await run.done;
    expect(end.code, end.stderr).toBe(0);
    // the batch did spool its rows (the folder exists), and left none
    expect(existsSync(spool(cfg))).toBe(true);
    expect(readdirSync(spool(cfg))).toEqual([]);
    expect(copies(cfg)).toEqual([]);
    expect(copies(tmp)).toEqual([]);
  },
);

it.concurrent(
  'in a process that goes on after the batch (a step of mpay run): the batch removes its rows itself',
  async () => {
    // No exit runs the IO's cleanup here: the batch's own removal at its end is all there is.
    const cfg = tempDir();
    const r = await mpay(['deposit', 'batch', '-', '--json'], {
      env: cliEnv(sb, cfg),
      input: rows.replace(',10,', ',18,'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(spool(cfg))).toBe(true);
    expect(readdirSync(spool(cfg))).toEqual([]);
    expect(copies(cfg)).toEqual([]);
  },
);

// The IO's exit-time cleanup (process 'exit' → interrupts.cleanUp): the run ends by an error nothing in mpay
// expected, thrown outside any of its code's try (a write to stdout failing with ENOSPC, thrown from the
// stream's 'error' event), so no finally of the batch runs; the spooled rows go all the same.
it.skipIf(!existsSync('/dev/full'))(
  'an unexpected error mid-run (stdout on a full disk): its spooled rows are removed as the process exits',
  { concurrent: true },
  async () => {
    const cfg = tempDir();
    const tmp = tempDir();
    const full = openSync('/dev/full', 'w');
    try {
      const end = await batch(cfg, tmp, sb.url, rows.replace(',10,', ',16,'), full).done;
      expect(end.code, end.stderr).toBe(1);
      expect(end.stderr).toMatch(/ENOSPC/);
      // the row ran (its rows were spooled), and nothing of them is left
      expect(end.stderr).toMatch(/row 1 \S+: done/);
      expect(existsSync(spool(cfg))).toBe(true);
      expect(readdirSync(spool(cfg))).toEqual([]);
      expect(copies(cfg)).toEqual([]);
      expect(copies(tmp)).toEqual([]);
    } finally {
      closeSync(full);
    }
  },
);

it.concurrent(
  'killed outright: the file stays private, and the next batch from stdin removes it',
  async ({ onTestFinished }) => {
    const cfg = tempDir();
    const tmp = tempDir();
    const silent = await silentServer(onTestFinished);
    const run = batch(cfg, tmp, silent.url);
    await silent.arrived;
    run.child.kill('SIGKILL');
    await run.done;
    const [left] = copies(cfg);
    expect(statSync(left!).mode & 0o777).toBe(0o600);
    expect(copies(tmp)).toEqual([]);
    // (other rows: the references of a batch come from its rows, and the first test sent these)
    const next = await batch(cfg, tmp, sb.url, rows.replace(',10,', ',12,')).done;
    expect(next.code, next.stderr).toBe(0);
    expect(copies(cfg)).toEqual([]);
  },
);
