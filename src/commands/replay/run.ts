// `mpay replay FILE`: the API's calls of a trace (or of a support bundle's traces) sent again to the server
// of this run (flows/replay/replay.ts), each answer beside the recorded one; exit 13 when some differ.
import { memoryTokens } from '../../api/credentials.js';
import { UsageError, replayDiffersExitCode } from '../../common/errors.js';
import { isSandboxServer } from '../../config/live.js';
import type { RecordedCall } from '../../api/har-read.js';
import type { Factory } from '../../factory.js';
import { refuseMissingCredentials, replay } from '../../flows/replay/replay.js';
import { planReplay } from '../../flows/replay/replay-plan.js';
import { confirmKeepCustomer, personalOf, registerRecordedSecrets } from '../../flows/replay/recorded.js';
import { saveScenario } from '../../flows/replay/save-scenario.js';
import { printResult } from '../../ui/print.js';
import { replayPlan, replayReport } from '../../ui/replay-report.js';
import { readTraceFile } from '../shared/trace-file.js';

export interface ReplayOptions {
  file: string;
  json?: boolean;
  dryRun?: boolean;
  otp?: string;
  keepGoing?: boolean;
  /** --keep-customer: the recorded customer's data, not neutral values, on a server that is not a sandbox */
  keepCustomer?: boolean;
  /** --save-scenario FILE: the calls as a scenario of `mpay run`, nothing sent; - for stdout */
  saveScenario?: string;
  /** replace an existing --save-scenario file */
  force?: boolean;
}

export async function runReplay(opts: ReplayOptions, f: Factory): Promise<void> {
  const read = await readTraceFile(opts.file);
  registerRecordedSecrets(read.calls, f.secrets);
  if (read.ignored)
    f.io.note(`mpay: ${read.ignored} entries of ${opts.file} are not calls of the API: left out`);
  if (!read.calls.length)
    throw new UsageError(`${opts.file} holds no call of the API (no request to /restapi/v1/)`, {
      hint: 'Give a HAR written with --trace, or a support bundle made with --trace-file',
    });
  if (opts.saveScenario) return writeScenario(read.calls, opts, f);
  const ctx = await f.context();
  // The run's credentials are its secrets from the start: the plan holds them, and a dry run shows it.
  f.secrets.register(ctx.credentials.merchantKey);
  f.secrets.register(ctx.credentials.apiKey);
  refuseMissingCredentials(read.calls, ctx.credentials);
  const sandboxServer = isSandboxServer(ctx.baseUrl, ctx.store.profiles());
  const neutral = !sandboxServer && !opts.keepCustomer;
  if (opts.dryRun) {
    const planned = planReplay(read.calls, { credentials: ctx.credentials, server: ctx.baseUrl, neutral });
    const plan = f.secrets.value(planned) as typeof planned;
    // verbatim: the report holds the bodies as JSON
    await printResult(f.io, opts.json, plan, () => replayPlan(plan, ctx.baseUrl, neutral), 'verbatim');
    return;
  }
  if (opts.keepCustomer && !sandboxServer)
    await confirmKeepCustomer(read.calls, ctx.baseUrl, { yes: f.globals.yes, prompter: () => f.prompter() });
  const tokens = memoryTokens();
  // a fresh token: the replay's client starts with none, and keeps the one it makes in memory
  const deps = await f.flowDeps({ command: 'mpay replay', tokens });
  const recordedAt = [...new Set(read.calls.map((c) => c.origin))].join(', ');
  f.io.note(`mpay: replaying ${read.calls.length} calls recorded at ${recordedAt} against ${ctx.baseUrl}`);
  if (neutral && read.calls.some((c) => personalOf(c).length))
    f.io.note(
      `mpay: ${ctx.baseUrl} is not a sandbox: the recorded customer's data is replaced by neutral values (--keep-customer sends it)`,
    );
  const results = await replay(
    {
      calls: read.calls,
      credentials: ctx.credentials,
      tokens,
      otp: opts.otp,
      source: opts.file,
      keepGoing: opts.keepGoing,
      server: ctx.baseUrl,
      neutral,
    },
    deps,
  );
  const stopped = results.find((r) => r.skipped?.includes('--keep-going'));
  if (stopped) f.io.note(`mpay: ${stopped.skipped!.replace(/^not sent: /, 'stopped: ')}`);
  const shown = f.secrets.value(results) as typeof results;
  await printResult(f.io, opts.json, shown, () => replayReport(shown, ctx.baseUrl), 'verbatim');
  if (results.some((r) => !r.same)) f.io.exitCode = replayDiffersExitCode;
}

/** --save-scenario: the scenario written (flows/replay/save-scenario.ts), or printed on stdout with -. */
async function writeScenario(calls: RecordedCall[], opts: ReplayOptions, f: Factory): Promise<void> {
  const file = opts.saveScenario!;
  const { steps, text } = await saveScenario(
    calls,
    { file, source: opts.file, json: opts.json, force: opts.force },
    f.secrets,
    f.outputs,
  );
  if (text !== undefined) {
    // stdout (-), or a file that could not be written (exit 15, ui/output-failures.ts): the scenario here
    f.io.out(text.replace(/\n$/, ''));
    if (file !== '-') return;
    f.io.note(`mpay: ${steps} steps; save them to a file and run it with \`mpay run FILE\``);
    return;
  }
  await printResult(
    f.io,
    opts.json,
    { scenario: file, steps },
    () => `Wrote ${file}: ${steps} steps; run it with \`mpay run ${file}\``,
  );
}
