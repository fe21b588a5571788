// `mpay config list`: a profile's settings.
import type { Factory } from '../../../factory.js';
import { renderRecord } from '../../../ui/output.js';
import { fitWidth, printResult } from '../../../ui/print.js';
import { settings, type SettingsOptions } from '../../shared/settings.js';

export async function runConfigList(opts: SettingsOptions, f: Factory): Promise<void> {
  const all = settings(await f.store(), opts.profile);
  await printResult(f.io, opts.json, all, () => renderRecord(all, fitWidth(f.io)));
}
