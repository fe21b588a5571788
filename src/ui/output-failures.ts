// The one place a run's output failures (common/out-file.ts Outputs: --trace, --out, a report, --save-scenario)
// become what the person and the script see: a line each on stderr naming the file, why, and what had been
// sent, and exit 15 (output_failed), never 2, which says nothing was sent. Called as a command ends
// (BaseCommand.execute), and by `mpay run` before a second Ctrl-C ends it at once.
import { exitCodes } from '../common/errors.js';
import type { Outputs } from '../common/out-file.js';
import type { IO } from '../io/io.js';

export function tellOutputFailures(io: IO, outputs: Outputs): void {
  const failed = outputs.untold();
  for (const f of failed) {
    const after = f.after?.();
    io.note(
      `mpay: error: ${f.what} ${f.path} could not be written (${f.why})${after ? ` ${after}` : ''}: ${
        after ? 'what was sent stands, and' : 'nothing was sent;'
      } the results are on stdout; do not run the command again to get the file`,
    );
  }
  // Ctrl-C's 130 stays: the run was cut short, which says more.
  if (failed.length && io.exitCode !== exitCodes.cancelled) io.exitCode = exitCodes.output_failed;
}
