#!/usr/bin/env node
// npm run mutate [-- MODULE[:FROM-TO] ...] [-- stryker options]: Stryker over each safety module in turn,
// each against its own test files (scripts/mutation-modules.mjs), then one table of the scores of every
// module with a report here (run now or before), written to reports/mutation/summary.md as well. With no
// module named, every safety module. Exits 1 when a module run now scores under 90%, 2 when a run could
// not be made, 130 when stopped.
//
// Each module keeps an incremental file (reports/mutation/<module>.incremental.json): a run again tests only
// the mutants whose line or covering tests changed since. Each run still pays Stryker's set-up and its
// first test run with coverage (a minute or two a module, idle).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { safetyModules, testsOf } from './mutation-modules.mjs';

const THRESHOLD = 90;
// A TypeScript file (optionally `:FROM-TO`) names a module, in any spelling of its path (./src/x.ts, an
// absolute path); every other word, an option or its value, goes to Stryker as it is (no list of which
// options take a value to keep in step with Stryker's).
const specs = [];
const passThrough = [];
for (const a of process.argv.slice(2)) {
  const named = /^([^-].*\.ts)(:\d+-\d+)?$/.exec(a);
  if (!named) passThrough.push(a);
  else specs.push(relative(process.cwd(), resolve(named[1])).split('\\').join('/') + (named[2] ?? ''));
}
const todo = specs.length ? specs : safetyModules.map((m) => m.module);

for (const spec of todo) {
  if (testsOf(spec)) continue;
  const file = spec.replace(/:\d+-\d+$/, '');
  console.error(
    `mutate: ${existsSync(file) ? `${file} is not a safety module` : `no such file: ${file}`}; the safety modules (scripts/mutation-modules.mjs):\n${safetyModules.map((m) => `  ${m.module}`).join('\n')}`,
  );
  process.exit(2);
}

const slugOf = (spec) => spec.replace(/^src\//, '').replace(/[^\w.-]+/g, '_');
const reportOf = (spec) => `reports/mutation/${slugOf(spec)}.json`;
mkdirSync('reports/mutation', { recursive: true });
const minutes = new Map();
for (const spec of todo) {
  const started = Date.now();
  console.error(`\nmutate: ${spec} against ${testsOf(spec).join(', ')}`);
  const run = spawnSync('npx', ['stryker', 'run', '--mutate', spec, ...passThrough], {
    stdio: 'inherit',
    env: { ...process.env, MPAY_MUTATE_MODULE: spec },
  });
  const report = reportOf(spec);
  if (run.signal) {
    console.error(
      `mutate: stopped (${run.signal}) during ${spec}; a stopped run may leave .stryker-tmp/ behind (safe to delete)`,
    );
    process.exit(130);
  }
  if (run.status !== 0 || !existsSync(report)) {
    console.error(`mutate: Stryker failed on ${spec} (exit ${run.status})`);
    process.exit(2);
  }
  minutes.set(spec, (Date.now() - started) / 60_000);
}

/** Stryker's statuses of one report (mutation-testing-report-schema), and its score as Stryker computes it. */
function count(report) {
  const n = {
    Killed: 0,
    Timeout: 0,
    Survived: 0,
    NoCoverage: 0,
    CompileError: 0,
    RuntimeError: 0,
    Ignored: 0,
  };
  const survivors = [];
  for (const [file, { mutants }] of Object.entries(report.files))
    for (const m of mutants) {
      n[m.status] = (n[m.status] ?? 0) + 1;
      if (m.status === 'Survived' || m.status === 'NoCoverage')
        survivors.push(
          `${file}:${m.location.start.line} ${m.mutatorName}${m.replacement ? ` -> ${m.replacement.split('\n')[0].slice(0, 60)}` : ''}${m.status === 'NoCoverage' ? ' (no test reaches it)' : ''}`,
        );
    }
  const detected = n.Killed + n.Timeout;
  const valid = detected + n.Survived + n.NoCoverage;
  return { ...n, valid, score: valid ? (100 * detected) / valid : 100, survivors };
}

// The table holds every module whose whole report is here, run now or before (its code may have changed
// since: marked so), then the line ranges run now: one place to read where every module stands.
const rows = [
  ...safetyModules.map((m) => m.module).filter((m) => minutes.has(m) || existsSync(reportOf(m))),
  ...todo.filter((spec) => spec.includes(':')),
].map((spec) => {
  const report = JSON.parse(readFileSync(reportOf(spec), 'utf8'));
  const file = spec.replace(/:\d+-\d+$/, '');
  const changed = Object.values(report.files)[0]?.source !== readFileSync(file, 'utf8');
  return { spec, changed, minutes: minutes.get(spec), ...count(report) };
});
const lines = [
  '| module | mutants | killed | survived | no test | did not compile | score | minutes |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| \`${r.spec}\`${r.changed ? ' (changed since)' : ''} | ${r.valid + r.CompileError + r.RuntimeError} | ${r.Killed + r.Timeout} | ${r.Survived} | ${r.NoCoverage} | ${r.CompileError} | ${r.score.toFixed(1)}%${r.score < THRESHOLD ? ' (under 90%)' : ''} | ${r.minutes === undefined ? 'earlier' : r.minutes.toFixed(1)} |`,
  ),
];
const survivors = rows.flatMap((r) => r.survivors);
const summary = `${lines.join('\n')}\n${survivors.length ? `\nSurvivors:\n${survivors.map((s) => `- ${s}`).join('\n')}\n` : ''}`;
writeFileSync('reports/mutation/summary.md', summary);
console.log(`\n${summary}`);
process.exit(rows.some((r) => minutes.has(r.spec) && r.score < THRESHOLD) ? 1 : 0);
