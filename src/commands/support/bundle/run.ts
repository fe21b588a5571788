// `mpay support bundle`: one archive a merchant can attach to a ticket: what mpay and the machine are,
// the profile's settings (key fingerprints only), the doctor report, the journal and any traces named,
// with customers' personal data masked unless asked otherwise, and a README.txt saying what is inside.
// The files and the archive: flows/support/bundle.ts.
import type { Factory } from '../../../factory.js';
import { writeBundle, type BundleChoices, type Mask } from '../../../flows/support/bundle.js';
import { maskPersonal } from '../../../ui/personal-data.js';
import { printResult } from '../../../ui/print.js';
import { parseWhen } from '../../../common/when.js';
import { settings } from '../../shared/settings.js';

export interface BundleOptions extends BundleChoices {
  json?: boolean;
}

export async function runSupportBundle(opts: BundleOptions, f: Factory): Promise<void> {
  const ctx = await f.context();
  // the run's keys are scrubbed by value from every file, a browser's HAR included
  f.secrets.register(ctx.credentials.merchantKey);
  f.secrets.register(ctx.credentials.apiKey);
  const mask: Mask = opts.includePersonalData ? (v: unknown) => v : maskPersonal;
  if (opts.includePersonalData)
    f.io.warn("the bundle keeps customers' names, phones and e-mails: share it only where that is allowed");
  const since = opts.since === undefined ? undefined : parseWhen(opts.since, '--since', f.now());
  const { file, files } = await writeBundle(opts, since, {
    ctx,
    userAgent: f.userAgent,
    now: f.now,
    secrets: f.secrets,
    mask,
    settings: settings(ctx.store, ctx.profileName),
    doctor: async () => {
      const { runChecks } = await import('../../../flows/doctor/doctor.js');
      return runChecks(
        ctx,
        await f.client(),
        () => {},
        f.environ,
        await f.journal(undefined, { at: await f.place() }),
        // A bundle never sends the credentials probe to a live server: it is skipped there, and says so.
        { gate: await f.gate(), explicit: false },
      );
    },
    journal: () => f.journal(),
  });
  await printResult(f.io, opts.json, { file, files: files.map((x) => x.name) }, () =>
    [`Wrote ${file}:`, ...files.map(({ name, what }) => `  ${name.padEnd(28)} ${what}`)].join('\n'),
  );
}
