// Runs an mpay command in this process, as bin/run.js would run it but without spawning Node: the real
// oclif command class (from the TypeScript sources) parses the argv, with memoryIO() for its streams and
// the given variables as its environment. The result has the shape of helpers.run()'s. Used where the
// process itself does not matter (exit codes, --json, messages, what was sent and journaled); the tests of
// the bundle, the code cache, signals and the pseudo-terminal still spawn bin/run.js.
import { Config } from '@oclif/core/config';
import { argvFor, COMMANDS } from '../src/execute.js';
import { memoryIO } from '../src/io/io.js';
import { expect } from 'vitest';
import { demoMerchant } from '../src/sandbox/seed.js';
import { loginArgs, root, tempDir, type RunOptions, type RunResult } from './helpers.js';

let config: Promise<Config> | undefined;
interface HostedCommand {
  id?: string;
  withHost(h: { io: unknown; environ: NodeJS.ProcessEnv; runF?: (o: unknown) => void }): {
    _run(): Promise<unknown>;
  };
}
const commands = COMMANDS as unknown as Record<
  string,
  { id?: string; new (argv: string[], config: Config): HostedCommand }
>;

/**
 * oclif's config with the commands it loads (`mpay run`'s steps) taken from the TypeScript sources too, as
 * the command run here is: one copy of every module, so an error a step throws is one its class knows.
 */
function sourceCommands(c: Config): Config {
  const find = c.findCommand.bind(c);
  c.findCommand = ((id: string, opts?: { must?: boolean }) => {
    const found = find(id, opts as { must: true });
    const Cmd = commands[id];
    return found && Cmd ? { ...found, load: async () => Cmd } : found;
  }) as Config['findCommand'];
  return c;
}

/** The command an argv names: the longest run of leading words that is a command id. */
function find(argv: string[]): { id: string; rest: string[] } {
  for (let n = argv.length; n > 0; n--) {
    const id = argv.slice(0, n).join(':');
    if (!argv.slice(0, n).some((w) => w.startsWith('-')) && commands[id]) return { id, rest: argv.slice(n) };
  }
  throw new Error(`in-process: no command in ${argv.join(' ')}`);
}

export async function mpay(
  argv: string[],
  opts: RunOptions & { tty?: boolean; width?: number; runF?: (options: unknown) => void } = {},
): Promise<RunResult> {
  config ??= Config.load({ root }).then(sourceCommands);
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1' };
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  const io = memoryIO({ stdin: opts.input, env, tty: opts.tty, width: opts.width });
  // The global flags written before the command move after it, as bin/run.js moves them.
  const { id, rest } = find(argvFor(argv));
  const Cmd = commands[id]!;
  Cmd.id = id;
  // The command object gets this run's IO and variables (its flags' variables are read from them, not
  // from process.env): nothing global changes, so runs in one file may go concurrently.
  const cmd = new Cmd(rest, await config);
  cmd.id = id;
  await cmd.withHost({ io, environ: env, runF: opts.runF })._run();
  const stdout = io.stdoutText();
  return { code: io.exitCode, stdout, stderr: io.stderrText(), json: () => JSON.parse(stdout) };
}

/**
 * The Options a command line becomes, without running anything (gh's runF): how flags, arguments and
 * variables turn into what the run function gets. A usage error comes back as the result's code.
 */
export async function optionsOf(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ options?: unknown; result: RunResult }> {
  let options: unknown;
  const result = await mpay(argv, { env, runF: (o) => void (options = o) });
  return { options, result };
}

/** A config folder with profiles `a` (on sandbox a, current) and `b` (on sandbox b), the key file kept. */
export async function twoProfiles(a: { url: string }, b: { url: string }): Promise<Record<string, string>> {
  const env = { MPAY_CONFIG_DIR: tempDir(), MPAY_KEYRING: 'off' };
  const keys = { MPAY_MERCHANT_KEY: demoMerchant.merchantKey, MPAY_API_KEY: demoMerchant.apiKey };
  for (const [name, sb] of [
    ['b', b],
    ['a', a],
  ] as const) {
    const r = await mpay(loginArgs(name, sb.url), { env: { ...env, ...keys } });
    expect(r.code, r.stderr).toBe(0);
  }
  return env;
}
