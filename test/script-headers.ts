// What the scripts-help tests (both tiers) read of scripts/: which scripts take flags, and the header
// comment each one's --help prints.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './helpers.js';

export const scripts = join(root, 'scripts');

/** The scripts that read flags or arguments of their own (script-help.js is the helper they call). */
export const readingFlags = readdirSync(scripts)
  .filter((f) => f.endsWith('.js') && f !== 'script-help.js')
  .filter((f) =>
    /parseArgs\(|process\.argv\.(includes|indexOf|slice)\(|process\.argv\[[2-9]\]/.test(
      readFileSync(join(scripts, f), 'utf8'),
    ),
  )
  .sort();

/** A script's header comment, as --help prints it. */
export function header(file: string): string {
  const lines = readFileSync(join(scripts, file), 'utf8').split('\n');
  const start = lines[0]!.startsWith('#!') ? 1 : 0;
  const end = lines.findIndex((l, i) => i >= start && !l.startsWith('//'));
  return lines
    .slice(start, end)
    .map((l) => l.replace(/^\/\/ ?/, ''))
    .join('\n')
    .trim();
}
