// What `mpay run` reads and checks before anything is sent (commands/run/run.ts): every scenario file
// read and checked, problems all at once; the one-time code (--otp-stdin, or asked when its step needs
// it); the live rules, applied once for the run; and the line said before the first step.
import { UsageError } from '../../common/errors.js';
import { judgeServer } from '../../config/live.js';
import type { Secrets } from '../../api/redact.js';
import type { Context } from '../../config/context.js';
import type { MoneyGate } from '../gate/money-gate.js';
import type { Prompter } from '../prompter.js';
import { checkScenario, isMoneyStep, type CommandTable } from './scenario-check.js';
import { posText, readScenario, type Problem, type Scenario } from './scenario-file.js';
import { freshReference, givenVars, readText, startScope, varsFile, withNames } from './scenario-values.js';

/**
 * The run's scenarios, each with the scope its steps start with; the variables asked late (the one-time
 * code on a terminal); and the context the live rules were applied in: all before anything is sent.
 */
export async function prepareRun(
  opts: {
    files: string[];
    vars?: string[];
    varsFile?: string;
    otpStdin?: boolean;
    commands: { info: CommandTable };
  },
  f: Parameters<typeof oneTimeCode>[2] &
    Parameters<typeof liveRules>[1] & {
      environ: NodeJS.ProcessEnv;
      now(): Date;
      store(): Promise<{ profiles(): Parameters<typeof judgeServer>[2] }>;
    },
): Promise<{
  runs: { scenario: Scenario; scope: Map<string, unknown> }[];
  late: Map<string, () => Promise<unknown>>;
  /** where the run goes, and whether the live rule holds there */
  ctx: { env: string; baseUrl: string; live: boolean };
}> {
  const given = givenVars({ file: varsFile(opts.varsFile), environ: f.environ, flags: opts.vars });
  // each file read once (a large one is read a part at a time: scenario-file.ts), checked below
  const read = opts.files.map((file) => readScenario(file, readText(file, 'the scenario')));
  const late = await oneTimeCode(opts, given, f, read);
  // Each file's run has a fresh reference of its own (two files, or one file twice, never share one), and
  // its steps' names substituted once, from its variables: the names the live question, the lines, the
  // records and the reports all show. A variable asked late is given, and left out of the scope until
  // the step that needs it.
  const runs = checkAll(opts.files, read, opts.commands.info, new Set([...given.keys(), ...late.keys()])).map(
    (s) => {
      const scope = startScope(s, given, freshReference(f.now()));
      for (const name of late.keys()) if (scope.get(name) === null) scope.delete(name);
      return { scenario: withNames(s, scope), scope };
    },
  );
  const ctx = await liveRules(
    runs.map((r) => r.scenario),
    f,
  );
  // the server as the live rule judges it, not the environment's name: a URL a profile keeps as live is live
  const verdict = judgeServer(ctx.baseUrl, ctx.env, (await f.store()).profiles());
  return { runs, late, ctx: { ...ctx, live: verdict.live } };
}

/** What runs, said before the first step: the files, their steps, the server, what a failed step does. */
export function startLine(
  scenarios: Scenario[],
  ctx: { env: string; baseUrl: string; live: boolean },
  failFast?: boolean,
): string {
  const steps = scenarios.reduce((n, s) => n + s.steps.length, 0);
  const money = scenarios.reduce((n, s) => n + s.steps.filter(isMoneyStep).length, 0);
  const files = scenarios.length === 1 ? scenarios[0]!.file : `${scenarios.length} files`;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `mpay: running ${files}: ${plural(steps, 'step')}${money ? ` (${money} money)` : ''} against ${ctx.live ? `the live server ${ctx.baseUrl}` : `${ctx.env} (${ctx.baseUrl})`}; ${
    failFast
      ? '--fail-fast: a failed step stops the run'
      : '--keep-going: a failed step does not stop the others (a failed money step stops the money steps after it)'
  }`;
}

/** The variable a one-time code goes in: the one a saved scenario's withdraw confirmation requires. */
const otpVariable = 'otp';

/**
 * The one-time code a scenario requires (\${otp}, a required variable): --otp-stdin reads it; else, not
 * given and a file requires it, it is asked on a terminal when its step needs it (the steps before it
 * sent first): returned as a late variable. Without a terminal the check of the files names it, and
 * nothing is sent. The code is a secret of the run from then on.
 */
export async function oneTimeCode(
  opts: { otpStdin?: boolean; files: string[] },
  given: Map<string, unknown>,
  f: { io: { readStdin(): Promise<string> }; prompter(): Promise<Prompter | undefined>; secrets: Secrets },
  read: { scenario: Scenario }[],
): Promise<Map<string, () => Promise<unknown>>> {
  const late = new Map<string, () => Promise<unknown>>();
  if (opts.otpStdin) {
    const code = (await f.io.readStdin()).trim();
    if (!code)
      throw new UsageError('Nothing on stdin for --otp-stdin', {
        hint: 'printf %s "$CODE" | mpay run FILE --otp-stdin',
      });
    given.set(otpVariable, code);
  } else if (!given.has(otpVariable)) {
    const requires = read.some(({ scenario }) =>
      scenario.vars.some((v) => v.name === otpVariable && v.value === null),
    );
    const prompter = requires ? await f.prompter() : undefined;
    if (prompter) {
      let asked: Promise<string> | undefined;
      late.set(otpVariable, () => {
        asked ??= prompter
          .password({
            message: 'The one-time code the scenario confirms a withdrawal with',
            validate: (v) => (v.trim() ? true : 'the code sent to the customer e-mail'),
          })
          .then((code) => {
            f.secrets.register(code.trim());
            return code.trim();
          });
        return asked;
      });
    }
  }
  const code = given.get(otpVariable);
  if (typeof code === 'string') f.secrets.register(code);
  return late;
}

/** Every file checked; all their problems at once, each at file:line:column, before anything is sent. */
export function checkAll(
  files: string[],
  read: { scenario: Scenario; problems: Problem[] }[],
  table: CommandTable,
  given: ReadonlySet<string>,
): Scenario[] {
  const problems: Problem[] = [];
  const scenarios = read.map((r) => {
    problems.push(...r.problems);
    problems.push(...checkScenario(r.scenario, table, given));
    return r.scenario;
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
export async function liveRules(
  scenarios: Scenario[],
  f: { context(): Promise<Context>; gate(): Promise<MoneyGate> },
): Promise<{ env: string; baseUrl: string }> {
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
  if (money.length)
    await gate.pass({
      what: `this scenario run's ${money.length} money step${money.length === 1 ? '' : 's'} (${money.join(', ')})`,
    });
  return ctx;
}
