// `mpay doctor`: a line per check as it ends (a long one folded on a terminal), then the verdict; exit 0
// only when every check passes, else the exit code of the first failure's kind.
import { exitCodes } from '../../common/errors.js';
import type { Factory } from '../../factory.js';
import type { Check } from '../../flows/doctor/doctor.js';
import { clean } from '../../ui/output.js';
import { printJson } from '../../ui/print.js';

export async function runDoctor(opts: { json?: boolean; checkApiKey?: boolean }, f: Factory): Promise<void> {
  const { runChecks } = await import('../../flows/doctor/doctor.js');
  const ctx = await f.context();
  // The report is the command's result: on stdout, line by line as each check ends, prose that the IO
  // folds to a terminal's width (a long check continues under its name, indented by two); a pipe gets
  // each check on one line.
  const show = (c: Check) => {
    if (opts.json) return;
    const lines = [`${c.ok ? '✓' : '✗'} ${c.name}: ${clean(c.detail)}`];
    if (!c.ok && c.hint) lines.push(`    hint: ${clean(c.hint)}`);
    f.io.say(lines.join('\n'));
  };
  const checks = await runChecks(
    ctx,
    await f.client(),
    show,
    f.environ,
    await f.journal(undefined, { at: await f.place() }),
    { gate: await f.gate(), explicit: Boolean(opts.checkApiKey) },
  );
  const ok = checks.every((c) => c.ok);
  if (opts.json) await printJson(f.io, { ok, checks: checks.map(({ kind: _k, ...c }) => c) });
  else {
    const skipped = checks.filter((c) => c.skipped).map((c) => c.name);
    const passed = skipped.length
      ? `All checks passed but ${skipped.join(', ')}, which was skipped.`
      : 'All checks passed.';
    f.io.say(ok ? passed : 'Some checks failed.');
  }
  const first = checks.find((c) => !c.ok);
  if (first) f.io.exitCode = exitCodes[first.kind ?? 'unexpected'];
}
