#!/usr/bin/env node
// node scripts/bench-journal.js [--sizes 100000,1000000] [--rounds N]
//
// What the journal's length costs (docs/performance.md, "The journal"): journals of N synthetic
// transactions (scripts/journal-synth.js, written as JSON lines and imported by the first command, as an
// upgrade does) in config folders of their own, against a sandbox, and the same commands with an empty
// journal. Each figure is the median of N runs, wall time and peak RSS (GNU time).
// Also part of `npm run bench`.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeJournal } from './journal-synth.js';
import Database from 'libsql';
import { helpOnAsk } from './script-help.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * `expect`: the exit code the run must end with (a --resume of a finished deposit refuses: exit 2).
 * `script`: what node runs (`['-e', '0']`: Node's own start, the floor of every figure here).
 */
function measured(args, env, expect = 0, script = [bin]) {
  const t = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', 'mpay-bench-rss %M', process.execPath, ...script, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== expect) throw new Error(`mpay ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, rss: Number(/mpay-bench-rss (\d+)/.exec(r.stderr)?.[1]) / 1024 };
}

function many(n, args, env, expect = 0, script = undefined) {
  const runs = Array.from({ length: n }, () =>
    measured(typeof args === 'function' ? args() : args, env, expect, script),
  );
  return {
    ms: +median(runs.map((r) => r.ms)).toFixed(1),
    peak_rss_mb: +median(runs.map((r) => r.rss)).toFixed(1),
  };
}

/**
 * The journal's figures and its targets (#45, the journal in SQLite): at 1,000,000 transactions a deposit
 * within 50 ms of an empty journal's, `history`'s first page within 200 ms (the whole process), an export
 * of every record within 30 s.
 */
export function journalTargets(r) {
  const checks = {};
  for (const [size, row] of Object.entries(r)) {
    if (size === '0') continue;
    const n = Number(size).toLocaleString('en');
    checks[`${n}: deposit ≤ empty + 50 ms`] = row.deposit.ms - r[0].deposit.ms <= 50;
    checks[`${n}: history's first page ≤ 200 ms`] = row.history.ms <= 200;
    checks[`${n}: export of every record as JSON lines ≤ 30 s`] = row.export_jsonl.ms <= 30_000;
    checks[`${n}: export of every record as CSV ≤ 30 s`] = row.export_csv.ms <= 30_000;
  }
  return checks;
}

/**
 * `fill`: how a journal of a size is made, or a function of the size that says it: 'sql' (fillJournal) or
 * 'jsonl' (a journal of JSON lines that the first command imports); by default BENCH_JOURNAL_FILL, else
 * 'jsonl'.
 */
export async function benchJournal({ sandbox, sizes, rounds, fill = process.env.BENCH_JOURNAL_FILL }) {
  const creds = {
    MPAY_MERCHANT_KEY: sandbox.merchant_key,
    MPAY_SITE_ID: sandbox.site_id,
    MPAY_API_KEY: sandbox.api_key,
    MPAY_BASE_URL: sandbox.url,
  };
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MPAY_')));
  // the place of the bench's runs, so that --resume finds the synthetic records as its own
  const fp = spawnSync(process.execPath, [bin, 'whoami', '--json'], {
    env: { ...base, ...creds, MPAY_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mpay-bj-')) },
    encoding: 'utf8',
  });
  const merchant = JSON.parse(fp.stdout).merchant_key_fingerprint;
  const place = { server: sandbox.url, merchant, profile: 'default', env: 'sandbox' };
  let n = 0;
  const deposit = () => [
    'deposit',
    ...['--currency', 'GHS', '--country', 'GH', '--amount', '10', '--first-name', 'Ama'],
    ...['--phone', '+233201234567', '--email', 'ama@example.com', '--gateway', '1'],
    ...['--reference', `bench-j-${process.pid}-${n++}`, '--json'],
  ];
  const out = {};
  for (const size of [0, ...sizes]) {
    const dir = mkdtempSync(join(tmpdir(), `mpay-bj-${size}-`));
    const env = { ...base, ...creds, MPAY_CONFIG_DIR: dir };
    const row = { transactions: size };
    let refs = [];
    if (size > 0) {
      if ((typeof fill === 'function' ? fill(size) : fill) === 'sql') {
        // The database filled through SQL directly (a journal of JSON lines this size takes minutes to
        // write and to import): `size` processed deposits at this place, four events each.
        measured(deposit(), env);
        const t = Date.now();
        fillJournal(join(dir, 'journal', 'journal.db'), size, place);
        row.filled_in_s = +((Date.now() - t) / 1000).toFixed(1);
        refs = [`mpay-d-fill-${Math.floor(size / 2)}`];
      } else {
        // A journal of JSON lines as mpay before SQLite wrote it: the first command imports it (once).
        const file = join(dir, 'journal', 'default.sandbox.jsonl');
        const t = Date.now();
        // BENCH_JOURNAL_JSONL: a journal this script wrote before for this size (its writing takes minutes)
        const made = process.env.BENCH_JOURNAL_JSONL;
        if (made) {
          mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
          copyFileSync(made, file);
          const head = Buffer.alloc(65536);
          const fd = openSync(made, 'r');
          readSync(fd, head, 0, head.length, 0);
          closeSync(fd);
          refs = [/"reference":"(mpay-d-[^"]*)"/.exec(head.toString('utf8'))[1]];
        } else refs = writeJournal(file, { count: size, seed: 42, place }).refs;
        row.jsonl_mb = +(statSync(file).size / 1024 / 1024).toFixed(1);
        row.written_in_s = +((Date.now() - t) / 1000).toFixed(1);
        const first = measured(['history', '--limit', '1', '--json'], env);
        row.first_command_import = { ms: +first.ms.toFixed(0), peak_rss_mb: +first.rss.toFixed(1) };
      }
      row.database_mb = +(statSync(join(dir, 'journal', 'journal.db')).size / 1024 / 1024).toFixed(1);
    }
    // Node's own start in the same moment: `history`'s 200 ms is a whole process's, this its floor
    if (size === 0) row.node_e_0 = many(rounds, [], env, 0, ['-e', '0']);
    row.deposit = many(rounds, deposit, env);
    row.history = many(rounds, ['history', '--json'], env);
    if (size === 0) {
      // the same lookups where there is nothing to find: what an empty journal costs them (exit 2)
      row.history_show = many(rounds, ['history', 'show', 'mpay-d-none', '--json'], env, 2);
      row.deposit_resume = many(rounds, ['deposit', '--resume', 'mpay-d-none', '--json'], env, 2);
    } else {
      const deposits = refs.filter((r) => r.startsWith('mpay-d-'));
      const ref = deposits[Math.floor(deposits.length / 2)];
      row.history_show = many(rounds, ['history', 'show', ref, '--json'], env);
      // A finished deposit: --resume finds it and says so (exit 2); the lookup is what is measured.
      row.deposit_resume = many(rounds, ['deposit', '--resume', ref, '--json'], env, 2);
      const exported = measured(['history', 'export'], env);
      row.export_jsonl = { ms: +exported.ms.toFixed(0), peak_rss_mb: +exported.rss.toFixed(1) };
      const csv = measured(['history', 'export', '--format', 'csv'], env);
      row.export_csv = { ms: +csv.ms.toFixed(0), peak_rss_mb: +csv.rss.toFixed(1) };
    }
    out[size] = row;
    if (size > 0) {
      const empty = out[0];
      row.beyond_empty_ms = {
        deposit: +(row.deposit.ms - empty.deposit.ms).toFixed(1),
        history: +(row.history.ms - empty.history.ms).toFixed(1),
        history_show: +(row.history_show.ms - empty.history_show.ms).toFixed(1),
        deposit_resume: +(row.deposit_resume.ms - empty.deposit_resume.ms).toFixed(1),
      };
    }
    rmSync(dir, { recursive: true, force: true });
    console.error(`bench-journal: ${size} transactions done`);
  }
  return out;
}

/**
 * Adds `size` processed deposits at `place` to a journal database mpay made, by SQL: its indexes dropped,
 * the rows inserted in one statement, the indexes made again from their own definitions.
 */
export function fillJournal(file, size, place) {
  const db = new Database(file);
  try {
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'")
      .all();
    db.exec('PRAGMA cache_size = -262144');
    db.exec('BEGIN IMMEDIATE');
    for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
    const base = db.prepare('SELECT coalesce(max(id), 0) AS id FROM events').get().id;
    const at = (k) => `strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (i * 4 + ${k}) || ' seconds')`;
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${size - 1}),
        s(k, step, outcome) AS (VALUES (0, 'initiate', 'sent'), (1, 'initiate', 'ok'), (2, 'status', 'ok'), (3, 'processed', 'ok'))
      INSERT INTO events (id, journal, rec, reference, hash_token, server, merchant, at, event)
      SELECT ${base} + i * 4 + k + 1, 'default.sandbox', ${base} + i * 4 + 1, 'mpay-d-fill-' || i,
        CASE WHEN k > 0 THEN printf('%064x', i + 1) END, $server, $merchant, ${at('k')},
        json_object('at', ${at('k')}, 'reference', 'mpay-d-fill-' || i, 'kind', 'deposit', 'step', step,
          'outcome', outcome, 'hash_token', CASE WHEN k > 0 THEN printf('%064x', i + 1) END,
          'data', CASE k WHEN 0 THEN json_object('amount', '10', 'currency', 'GHS', 'country', 'GH',
            'customer', json_object('first_name', 'Ama', 'phone', '+233201234567', 'email', 'ama@example.com'),
            'gateway_id', 1) ELSE json_object('status', 'pending') END,
          'place', json_object('server', $server, 'merchant', $merchant, 'profile', 'default', 'env', 'sandbox'))
      FROM n, s`,
    ).run({ server: place.server, merchant: place.merchant });
    for (const { sql } of indexes) if (sql) db.exec(sql);
    db.exec('COMMIT');
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** A sandbox of mpay's own for a bench script run alone: the process, and its --json line. */
export async function benchSandbox() {
  const sb = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const info = await new Promise((resolve) => {
    let text = '';
    sb.stdout.on('data', (d) => {
      text += d;
      const line = text.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
  });
  return { sb, info };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  helpOnAsk(import.meta.url);
  const { values } = parseArgs({
    options: { sizes: { type: 'string' }, rounds: { type: 'string' } },
  });
  const sizes = (values.sizes ?? '100000,1000000').split(',').map(Number);
  const { sb, info } = await benchSandbox();
  try {
    const r = await benchJournal({ sandbox: info, sizes, rounds: Number(values.rounds ?? 7) });
    console.log(JSON.stringify({ journal: r, targets: journalTargets(r) }, null, 2));
  } finally {
    sb.kill();
  }
}
