// `mpay replay FILE --save-scenario`: a trace's calls written as a scenario of `mpay run`, nothing sent.
import { lstatSync } from 'node:fs';
import { basename } from 'node:path';
import { UsageError } from '../../common/errors.js';
import { OutputFile, type Outputs } from '../../common/out-file.js';
import type { RecordedCall } from '../../api/har-read.js';
import type { Secrets } from '../../api/redact.js';

/**
 * The scenario of `calls` (read from `source`), scrubbed of the run's secrets. A file is an editable
 * scenario, perhaps edited since: an existing one is kept unless `force` (then a link is refused, the file
 * made anew, 0600); `-` is stdout, where the text is handed back to be printed. The file is opened (a link,
 * a folder it cannot write: exit 2) before the scenario is made; a write that fails then (a full disk) is
 * kept in `outputs` (exit 15, ui/output-failures.ts) and the text handed back to go to stdout instead.
 */
export async function saveScenario(
  calls: RecordedCall[],
  to: { file: string; source: string; json?: boolean; force?: boolean },
  secrets: Secrets,
  outputs: Outputs,
): Promise<{ steps: number; text?: string }> {
  const { scenarioFromTrace } = await import('./scenario-from-trace.js');
  const { file } = to;
  const toStdout = file === '-';
  if (toStdout && to.json)
    throw new UsageError(
      '--save-scenario - writes the scenario on stdout, where --json writes its document',
      {
        hint: 'Leave out --json, or give --save-scenario a file',
      },
    );
  if (!toStdout) {
    if (!to.force && lstatSync(file, { throwIfNoEntry: false }))
      throw new UsageError(`${file} exists: --save-scenario does not replace it`, {
        hint: 'Give another file, or add --force to replace it',
      });
  }
  const out = toStdout ? undefined : OutputFile.open(file, 'the scenario', { outputs });
  const { text, steps } = scenarioFromTrace(calls, basename(to.source));
  // by the run's secrets' values: a browser's trace may hold one in a field of no secret name (by name
  // the writer leaves them out already, and a scrub by name would blank the \${otp} the file requires)
  const scrubbed = secrets.scrub(text);
  if (!out) return { steps, text: scrubbed };
  const written = out.write(scrubbed);
  out.close();
  return !written || out.failed ? { steps, text: scrubbed } : { steps };
}
