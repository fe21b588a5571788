// `mpay replay FILE`: the API's calls of a trace (or of a support bundle's traces) sent again to the server
// of this run (flows/replay.ts), each answer beside the recorded one; exit 13 when some differ.
import { lstatSync } from 'node:fs';
import { basename } from 'node:path';
import { memoryTokens } from '../../api/credentials.js';
import { OutputFile } from '../../api/out-file.js';
import { CancelledError, UsageError, replayDiffersExitCode } from '../../api/errors.js';
import { endpoint } from '../../api/endpoints.js';
import { isSandboxServer } from '../../config/live.js';
import type { Secrets } from '../../api/redact.js';
import { registerAnswerSecrets, registerSecretsIn } from '../../api/secret-names.js';
import type { RecordedCall } from '../../api/har-read.js';
import type { Factory } from '../../factory.js';
import { refuseMissingCredentials, replay } from '../../flows/replay.js';
import { planReplay } from '../../flows/replay-plan.js';
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

/**
 * A trace that mpay did not write (a browser's) may hold secrets in the clear: each one found by name is
 * registered, so that it is scrubbed by value from everything this run prints, wherever it appears.
 */
function registerRecordedSecrets(calls: RecordedCall[], secrets: Secrets): void {
  const register = (v: string) => secrets.register(v);
  for (const c of calls) {
    secrets.learn(c.body);
    if (c.response.text !== undefined) secrets.learn(c.response.text);
    registerSecretsIn(c.body, register);
    registerAnswerSecrets(c.response.text ?? '', register);
  }
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
  if (opts.saveScenario) return saveScenario(read.calls, opts, f);
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
  if (opts.keepCustomer && !sandboxServer) await confirmKeepCustomer(read.calls, ctx.baseUrl, f);
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

/** The personal fields (the endpoint table's) a recorded call holds. */
const personalOf = (c: RecordedCall) =>
  endpoint(c.endpoint).personal.filter((k) => c.body?.[k] !== undefined);

/**
 * --keep-customer on a server that is not a sandbox sends a real customer's e-mail and phone there (a
 * real one-time code may reach them): asked on a terminal, refused without one unless --yes.
 */
async function confirmKeepCustomer(calls: RecordedCall[], server: string, f: Factory): Promise<void> {
  const fields = [...new Set(calls.flatMap(personalOf))];
  if (!fields.length || f.globals.yes) return;
  const what = `the recorded customer's data (${fields.join(', ')}) to ${server}, which is not a sandbox`;
  const prompter = await f.prompter();
  if (!prompter)
    throw new UsageError(`Nothing was sent: --keep-customer would send ${what}`, {
      hint: 'Add --yes to send it anyway, or leave out --keep-customer to send neutral values',
    });
  if (!(await prompter.confirm({ message: `Send ${what}?`, default: false })))
    throw new CancelledError('Nothing was sent: the recorded customer data was not confirmed', {
      hint: 'Leave out --keep-customer to send neutral values',
    });
}

/**
 * --save-scenario: the scenario written, nothing sent. A file is an editable scenario, perhaps edited since:
 * an existing one is kept unless --force (then a link is refused, the file made anew, 0600); - is stdout.
 */
async function saveScenario(calls: RecordedCall[], opts: ReplayOptions, f: Factory): Promise<void> {
  const { scenarioFromTrace } = await import('../../flows/scenario-from-trace.js');
  const file = opts.saveScenario!;
  const toStdout = file === '-';
  if (toStdout && opts.json)
    throw new UsageError(
      '--save-scenario - writes the scenario on stdout, where --json writes its document',
      {
        hint: 'Leave out --json, or give --save-scenario a file',
      },
    );
  if (!toStdout) {
    if (!opts.force && lstatSync(file, { throwIfNoEntry: false }))
      throw new UsageError(`${file} exists: --save-scenario does not replace it`, {
        hint: 'Give another file, or add --force to replace it',
      });
  }
  // opened (a link, a folder it cannot write: exit 2) before the scenario is made
  const out = toStdout ? undefined : OutputFile.open(file, 'the scenario', { outputs: f.outputs });
  const { text, steps } = scenarioFromTrace(calls, basename(opts.file));
  // by the run's secrets' values: a browser's trace may hold one in a field of no secret name (by name
  // the writer leaves them out already, and a scrub by name would blank the \${otp} the file requires)
  const scrubbed = f.secrets.scrub(text);
  if (toStdout) {
    f.io.out(scrubbed.replace(/\n$/, ''));
    f.io.note(`mpay: ${steps} steps; save them to a file and run it with \`mpay run FILE\``);
    return;
  }
  const written = out!.write(scrubbed);
  out!.close();
  if (!written || out!.failed) {
    // a full disk: the scenario goes to stdout instead, and the run ends with exit 15 (ui/output-failures.ts)
    f.io.out(scrubbed.replace(/\n$/, ''));
    return;
  }
  await printResult(
    f.io,
    opts.json,
    { scenario: file, steps },
    () => `Wrote ${file}: ${steps} steps; run it with \`mpay run ${file}\``,
  );
}
