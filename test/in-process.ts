// Runs an mpay command in this process, as bin/run.js would run it but without spawning Node: the real
// oclif command class (from the TypeScript sources) parses the argv, with memoryIO() for its streams and
// the given variables as its environment. The result has the shape of helpers.run()'s. Used where the
// process itself does not matter (exit codes, --json, messages, what was sent and journaled); the tests of
// the bundle, the code cache, signals and the pseudo-terminal still spawn bin/run.js.
import { Config } from '@oclif/core/config';
import { COMMANDS } from '../src/execute.js';
import { memoryIO } from '../src/io.js';
import { host } from '../src/commands/base/base-command.js';
import { root, type RunOptions, type RunResult } from './helpers.js';

let config: Promise<Config> | undefined;
const commands = COMMANDS as unknown as Record<
  string,
  { id?: string; run(argv: string[], config: Config): Promise<unknown> }
>;

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
  opts: RunOptions & { tty?: boolean; width?: number } = {},
): Promise<RunResult> {
  config ??= Config.load({ root });
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1' };
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
  const io = memoryIO({ stdin: opts.input, env, tty: opts.tty, width: opts.width });
  const { id, rest } = find(argv);
  const Cmd = commands[id]!;
  Cmd.id = id;
  // oclif reads a flag's variable (MPAY_BASE_URL for --base-url…) from process.env: the run's own, for its
  // duration. Tests in one file run one after another, so no other run sees them.
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('MPAY_') || k === 'CI') delete process.env[k];
  Object.assign(process.env, env);
  const previous = { io: host.io, environ: host.environ };
  host.io = () => io;
  host.environ = () => env;
  try {
    await Cmd.run(rest, await config);
  } finally {
    host.io = previous.io;
    host.environ = previous.environ;
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
  const stdout = io.stdoutText();
  return { code: io.exitCode, stdout, stderr: io.stderrText(), json: () => JSON.parse(stdout) };
}
