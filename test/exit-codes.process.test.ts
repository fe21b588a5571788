// The exit code of the process itself for every kind of the README's exit-code table, through the real bin/run.js and its
// bundle: what a script's `$?` sees. (The in-process tests check the same kinds through memoryIO; 130 is
// checked by the pseudo-terminal tests, where a person answers "no".)
import { spawn } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  apiInitiate,
  apiToken,
  cliEnv,
  customerArgs,
  noStack,
  root,
  run,
  sandbox,
  setFaults,
  tempDir,
  type RunResult,
} from './helpers.js';
import { mpay } from './in-process.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it.concurrent('each kind exits with its code, prints its JSON error, and never a stack', async () => {
  const env = cliEnv(sb, tempDir());
  const token = await apiToken(sb.url);
  const hash = (await (await apiInitiate(sb.url, token, 'exit-codes-1')).json()).data.has_token as string;
  const done = (await (await apiInitiate(sb.url, token, 'exit-codes-2')).json()).data.has_token as string;
  // the transaction made final beforehand (set-up, not a kind of exit: in this process)
  expect((await mpay(['status', done, '--status', 'failed', '--gateway', '1'], { env })).code).toBe(0);
  const damaged = tempDir();
  writeFileSync(join(damaged, 'config.json'), '{"profiles":');

  const cases: Array<[number, string | null, string[], Record<string, string>?]> = [
    [0, null, ['countries']],
    [2, 'usage', ['countries', '--bogus']],
    [3, 'auth', ['balances'], { MPAY_MERCHANT_KEY: 'mk_unknown' }],
    [4, 'validation', ['status', hash, '--status', 'initiated', '--gateway', '99']],
    [5, 'state', ['status', done, '--status', 'failed', '--gateway', '1']],
    [
      6,
      'precondition',
      ['withdraw', 'initiate', ...customerArgs({ currency: 'XXX', gateway: '' }), '--force'],
    ],
    [8, 'network', ['countries'], { MPAY_BASE_URL: 'http://127.0.0.1:9', MPAY_RETRY_BASE_MS: '1' }],
    [9, 'local', ['whoami'], { MPAY_CONFIG_DIR: damaged }],
  ];
  // two processes at a time (the cores there are), each with a config folder of its own (none changes what
  // another meets); the server's fault after them
  const results: RunResult[] = [];
  for (let i = 0; i < cases.length; i += 2)
    results.push(
      ...(await Promise.all(
        cases
          .slice(i, i + 2)
          .map(([, , args, extra]) =>
            run([...args, '--json'], { env: { ...cliEnv(sb, tempDir()), ...extra } }),
          ),
      )),
    );
  cases.forEach(([code, kind, args], i) => {
    const r = results[i]!;
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
    if (kind) expect(r.json().error.kind).toBe(kind);
    expect(noStack(r.stderr)).toBe(true);
  });
  await setFaults(sb, { faults: ['html'], rate: 1, faultPaths: ['/public/countries'] });
  const server = await run(['countries', '--json'], { env });
  await setFaults(sb, { rate: 0 });
  expect(server.code).toBe(7);
  expect(server.json().error.kind).toBe('server');
});

it.concurrent('a closed stdout ends the command quietly, with 0, or the code of its failure', async () => {
  // a sandbox of its own: the test beside it makes sb's countries answer HTML for a while
  const sb = await sandbox();
  try {
    // `mpay … --json | true` under pipefail: the failure's JSON meets the closed pipe, its code stays
    const failing = [
      [2, ['deposit', ...customerArgs({ amount: '9999999' }), '--json']],
      [2, ['countries', '--nope', '--json']],
    ] as const;
    const failed = failing.map(async ([want, args]) => {
      const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...cliEnv(sb, tempDir()), NO_COLOR: '1' },
      });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code, `${args.join(' ')}: ${stderr}`).toBe(want);
      expect(stderr).not.toMatch(/EPIPE|Error:/);
    });
    await Promise.all(failed);
    const each = [['countries', '--json'], ['countries'], ['demo']].map(async (args) => {
      const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, MPAY_BASE_URL: sb.url, MPAY_CONFIG_DIR: tempDir(), NO_COLOR: '1' },
      });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code, `${args.join(' ')}: ${stderr}`).toBe(0);
      expect(stderr).not.toMatch(/EPIPE|Error|mpay: /);
    });
    await Promise.all(each);
  } finally {
    await sb.close();
  }
});

it.concurrent(
  'a reader gone mid-payment (stdout, or stderr alone): the payments go on to their end, each answer journaled',
  async () => {
    const sb = await sandbox();
    const rows = [
      'currency,country,amount,first_name,last_name,phone,email,gateway',
      ...Array.from(
        { length: 8 },
        (_, i) => `GHS,GH,${10 + i},Pipe,,+2332012${String(i).padStart(5, '0')},p${i}@example.org,1`,
      ),
    ].join('\n');
    const csv = join(tempDir(), 'rows.csv');
    writeFileSync(csv, rows);
    try {
      // `mpay deposit batch … | head -1`: the first row's result line meets EPIPE while the others are in
      // flight; `mpay deposit … --json 2>&1 >/dev/null | head -3`: a progress line on stderr meets it
      // before the deposit's later steps. The reader goes before mpay writes anything.
      for (const [closed, args] of [
        ['stdout', ['deposit', 'batch', csv, '--concurrency', '4', '--json']],
        ['stderr', ['deposit', ...customerArgs({ reference: 'pipe-stderr-1' }), '--json']],
      ] as const) {
        const cfg = tempDir();
        const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, ...cliEnv(sb, cfg), NO_COLOR: '1' },
        });
        child[closed].destroy();
        let other = '';
        child[closed === 'stdout' ? 'stderr' : 'stdout'].on('data', (d) => (other += d));
        const code = await new Promise((resolve) => child.on('close', resolve));
        expect(code, `${closed}: ${other}`).toBe(0);
        // the journal holds every payment whole, as the server does
        const listed = await mpay(['history', '--json'], { env: cliEnv(sb, cfg) });
        const records = listed.json() as { reference: string; status: string }[];
        expect(records, closed).toHaveLength(closed === 'stdout' ? 8 : 1);
        const txs = (await (await fetch(`${sb.url}/_sandbox/transactions`)).json()) as {
          reference: string;
          status: string;
        }[];
        for (const r of records) {
          expect(r.status, `${closed} ${r.reference}`).toBe('pending');
          expect(txs.find((t) => t.reference === r.reference)?.status, r.reference).toBe('pending');
        }
      }
    } finally {
      await sb.close();
    }
  },
);

it.concurrent(
  'the bundle the process tests spawn was built from the sources as they are (vitest builds it first)',
  () => {
    const newest = (dir: string): number =>
      Math.max(
        ...readdirSync(dir, { withFileTypes: true }).map((e) =>
          e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
        ),
      );
    expect(statSync(join(root, 'dist', 'mpay.cjs')).mtimeMs).toBeGreaterThanOrEqual(
      newest(join(root, 'src')),
    );
  },
);
