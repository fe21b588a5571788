// `mpay run FILE…`: scenario files (docs/scenarios.md) read and checked whole before anything is sent,
// the live rules applied once for the run, then each step run in this process (step-exec.ts) through the
// run's one Factory and money gate; a line a step, --json, --ndjson, and JUnit or TAP reports.
import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { UsageError, scenarioFailedExitCode } from '../../api/errors.js';
import { checkOutputFolder } from '../../api/out-file.js';
import type { Factory } from '../../factory.js';
import { checkScenario, isMoneyStep, type CommandTable } from '../../flows/scenario-check.js';
import { posText, readScenario, type Problem, type Scenario } from '../../flows/scenario-file.js';
import { runScenarios, type StepRecord } from '../../flows/scenario-run.js';
import { freshReference, givenVars, startScope } from '../../flows/scenario-values.js';
import { printJson } from '../../ui/print.js';
import { stepLine, summaryLine, writeReports, type ReportTarget } from '../../ui/scenario-report.js';
import type { Host } from '../base/base-command.js';
import { stepExecutor } from './step-exec.js';

export interface RunOptions {
  files: string[];
  vars?: string[];
  varsFile?: string;
  failFast?: boolean;
  json?: boolean;
  ndjson?: boolean;
  reports?: string[];
  /** the commands of this mpay: what validation knows of them, and how a step runs one in-process */
  commands: { info: CommandTable; run: (id: string, argv: string[], host: Host) => Promise<void> };
}

export async function runRun(opts: RunOptions, f: Factory): Promise<void> {
  const reports = reportTargets(opts.reports);
  const given = givenVars({ file: varsFile(opts.varsFile), environ: f.environ, flags: opts.vars });
  const scenarios = readAll(opts.files, opts.commands.info, new Set(given.keys()));
  await liveRules(scenarios, f);
  const reference = freshReference(f.now());
  if (opts.ndjson) f.io.ndjson = true;
  let file: string | undefined;
  const records = await runScenarios(
    scenarios.map((scenario) => ({ scenario, scope: startScope(scenario, given, reference) })),
    stepExecutor(f, opts.commands.run),
    {
      failFast: opts.failFast,
      signal: f.io.interrupts.signal,
      now: f.now,
      emit: (r) => {
        const shown = scrubbed(r, f);
        if (opts.ndjson) f.io.out(JSON.stringify(shown));
        else if (!opts.json) {
          // a line naming each file before its first step
          if (r.file !== file) {
            file = r.file;
            f.io.out(`# ${r.scenario} (${r.file})`);
          }
          f.io.out(stepLine(shown));
        }
      },
    },
  );
  const shown = records.map((r) => scrubbed(r, f));
  if (reports.length) writeReports(reports, shown);
  const failed = shown.filter((r) => r.outcome === 'failed').length;
  if (opts.json) await printJson(f.io, document(scenarios, shown, reference));
  else if (!opts.ndjson) f.io.out(summaryLine(shown));
  if (failed) f.io.exitCode = scenarioFailedExitCode;
}

/**
 * A record as it is shown: what was sent, what came back and what was captured scrubbed of the run's
 * secrets (api/redact.ts); the file's own words (names, paths, checks) as written.
 */
function scrubbed(r: StepRecord, f: Factory): StepRecord {
  const v = (x: unknown) => f.secrets.value(x);
  return {
    ...r,
    sent: r.sent === undefined ? undefined : f.secrets.text(r.sent),
    result: v(r.result),
    captured: r.captured && (v(r.captured) as Record<string, unknown>),
    failures: r.failures.map((x) => ({ ...x, expected: v(x.expected), actual: v(x.actual) })),
  };
}

/** The --json document: the run's reference, each file's steps, and the counts. */
function document(scenarios: Scenario[], records: StepRecord[], reference: string) {
  const count = (o: StepRecord['outcome']) => records.filter((r) => r.outcome === o).length;
  return {
    ok: records.every((r) => r.outcome === 'passed'),
    reference,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    scenarios: scenarios.map((s) => ({
      file: s.file,
      name: s.name,
      steps: records.filter((r) => r.file === s.file),
    })),
  };
}

function reportTargets(given: string[] | undefined): ReportTarget[] {
  const targets = (given ?? []).map((g) => {
    const m = /^(junit|tap)=(.+)$/.exec(g);
    if (!m) throw new UsageError(`Invalid --report "${g}": expected junit=FILE or tap=FILE`);
    checkOutputFolder(m[2]!, `the ${m[1]} report`);
    return { format: m[1] as ReportTarget['format'], file: m[2]! };
  });
  const files = targets.map((t) => resolve(t.file));
  const twice = files.find((f, i) => files.indexOf(f) !== i);
  if (twice)
    throw new UsageError(`Two --report flags write ${twice}: the second would overwrite the first`, {
      hint: 'Give each report a file of its own',
    });
  // A run that ends before its reports are written (a problem in a file, a refusal, Ctrl-C) leaves no
  // report of an earlier run behind for CI to publish as this one's.
  for (const t of targets) if (lstatSync(t.file, { throwIfNoEntry: false })?.isFile()) rmSync(t.file);
  return targets;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `Cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** --vars FILE: a mapping of names to values, YAML or JSON. */
function varsFile(file: string | undefined): Record<string, unknown> | undefined {
  if (!file) return undefined;
  let data: unknown;
  try {
    data = parse(readText(file, 'the variables file'));
  } catch (err) {
    throw new UsageError(
      `The variables file ${file} is not YAML or JSON: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new UsageError(`The variables file ${file} must hold a mapping of names to values`);
  return data as Record<string, unknown>;
}

/** Every file read and checked; all their problems at once, each at file:line:column, before anything is sent. */
function readAll(files: string[], table: CommandTable, given: ReadonlySet<string>): Scenario[] {
  const problems: Problem[] = [];
  const scenarios = files.map((file) => {
    const read = readScenario(file, readText(file, 'the scenario'));
    problems.push(...read.problems);
    problems.push(...checkScenario(read.scenario, table, given));
    return read.scenario;
  });
  if (problems.length) {
    const order = (p: Problem) => [files.indexOf(p.at.file), p.at.line, p.at.col];
    problems.sort((a, b) => order(a).reduce((d, v, i) => d || v - order(b)[i]!, 0));
    const lines = problems.map((p) => `${posText(p.at)}: ${p.message}`);
    throw new UsageError(
      `Nothing was sent: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} in the scenario${files.length > 1 ? 's' : ''}:\n${lines.join('\n')}`,
      { hint: 'See docs/scenarios.md for the format' },
    );
  }
  return scenarios;
}

/**
 * Live is the server's (config/live.ts): a file that names its environment is checked against the run's
 * (a mismatch is exit 2, nothing sent); a run with money steps on a live server is confirmed once, on a
 * terminal naming its money steps, or by --yes, before its first step. The gate is the run's, so the steps
 * pass it without asking again.
 */
async function liveRules(scenarios: Scenario[], f: Factory): Promise<void> {
  const ctx = await f.context();
  const gate = await f.gate();
  for (const s of scenarios) {
    const want = s.environment;
    if (!want) continue;
    const live = gate.live;
    if (want.value !== ctx.env || (want.value !== 'live' && live))
      throw new UsageError(
        `Nothing was sent: ${posText(want.at)}: ${s.file} is meant for the ${want.value} environment; this run is on ${live ? `the live server ${gate.server.server} (${gate.server.why})` : `${ctx.env} (${ctx.baseUrl})`}`,
        { hint: `Run it with --env ${want.value}, or change its environment: line` },
      );
  }
  const money = scenarios.flatMap((s) => s.steps.filter(isMoneyStep).map((st) => `${st.name}`));
  if (!money.length) return;
  await gate.pass({
    what: `this scenario run's ${money.length} money step${money.length === 1 ? '' : 's'} (${money.join(', ')})`,
  });
}
