#!/usr/bin/env node
// npm run mutate [-- MODULE[:FROM-TO] ...] [-- stryker options]: Stryker over each safety module in turn,
// each against its own test files (scripts/mutation-modules.mjs), then one table of the scores, written to
// reports/mutation/summary.md as well. With no module named, every safety module. Exits 1 when a module
// scores under 90%, 2 when a run could not be made.
//
// Each module keeps an incremental file (reports/mutation/<module>.incremental.json): a run again tests only
// the mutants whose line or covering tests changed since, so a whole run after a small change is short.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { safetyModules, testsOf } from './mutation-modules.mjs';

const THRESHOLD = 90;
const args = process.argv.slice(2);
const specs = args.filter((a) => /^src\/.+\.ts(:\d+-\d+)?$/.test(a));
const passThrough = args.filter((a) => !specs.includes(a));
const todo = specs.length ? specs : safetyModules.map((m) => m.module);

for (const spec of todo) {
  if (!testsOf(spec)) {
    console.error(`mutate: ${spec} is not a safety module (scripts/mutation-modules.mjs lists them)`);
    process.exit(2);
  }
}

const slugOf = (spec) => spec.replace(/^src\//, '').replace(/[^\w.-]+/g, '_');
mkdirSync('reports/mutation', { recursive: true });
const rows = [];
for (const spec of todo) {
  const started = Date.now();
  console.error(`\nmutate: ${spec} against ${testsOf(spec).join(', ')}`);
  const run = spawnSync('npx', ['stryker', 'run', '--mutate', spec, ...passThrough], {
    stdio: 'inherit',
    env: { ...process.env, MPAY_MUTATE_MODULE: spec },
  });
  const report = `reports/mutation/${slugOf(spec)}.json`;
  if (run.status !== 0 || !existsSync(report)) {
    console.error(`mutate: Stryker failed on ${spec} (exit ${run.status})`);
    process.exit(2);
  }
  rows.push({
    spec,
    minutes: (Date.now() - started) / 60_000,
    ...count(JSON.parse(readFileSync(report, 'utf8'))),
  });
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

const lines = [
  '| module | mutants | killed | survived | no test | did not compile | score | minutes |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| \`${r.spec}\` | ${r.valid + r.CompileError + r.RuntimeError} | ${r.Killed + r.Timeout} | ${r.Survived} | ${r.NoCoverage} | ${r.CompileError} | ${r.score.toFixed(1)}%${r.score < THRESHOLD ? ' (under 90%)' : ''} | ${r.minutes.toFixed(1)} |`,
  ),
];
const survivors = rows.flatMap((r) => r.survivors);
const summary = `${lines.join('\n')}\n${survivors.length ? `\nSurvivors:\n${survivors.map((s) => `- ${s}`).join('\n')}\n` : ''}`;
writeFileSync('reports/mutation/summary.md', summary);
console.log(`\n${summary}`);
process.exit(rows.some((r) => r.score < THRESHOLD) ? 1 : 0);
