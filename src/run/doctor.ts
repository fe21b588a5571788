// `mpay doctor`: one line per check as it ends, then the verdict; exit 0 only when every check passes,
// else the exit code of the first failure's kind.
import { exitCodes } from '../api/errors.js';
import type { Factory } from '../factory.js';
import type { Check } from '../flows/doctor.js';
import { clean } from '../ui/output.js';
import { printJson } from '../ui/print.js';

export async function runDoctor(opts: { json?: boolean }, f: Factory): Promise<void> {
  const { runChecks } = await import('../flows/doctor.js');
  const ctx = await f.context();
  // The report is the command's result: on stdout, line by line as each check ends.
  const show = (c: Check) => {
    if (opts.json) return;
    f.io.out(
      `${c.ok ? '✓' : '✗'} ${c.name}: ${clean(c.detail)}${!c.ok && c.hint ? `\n    hint: ${clean(c.hint)}` : ''}`,
    );
  };
  const checks = await runChecks(ctx, await f.client(), show, f.environ);
  const ok = checks.every((c) => c.ok);
  if (opts.json) await printJson(f.io, { ok, checks: checks.map(({ kind: _k, ...c }) => c) });
  else f.io.out(ok ? 'All checks passed.' : 'Some checks failed.');
  const first = checks.find((c) => !c.ok);
  if (first) f.io.exitCode = exitCodes[first.kind ?? 'unexpected'];
}
