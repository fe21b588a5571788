// `--help` (or -h) for the scripts that take flags: prints the script's header comment (its usage and what
// it does, written once, at its top) on stdout and exits 0, before the script does anything else.
// test/scripts-help.test.ts checks that every script of scripts/ that reads flags calls it.
import { readFileSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Called first by a script run as a command, with its own import.meta.url. */
export function helpOnAsk(scriptUrl, argv = process.argv.slice(2)) {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  const lines = readFileSync(fileURLToPath(scriptUrl), 'utf8').split('\n');
  const header = [];
  for (const line of lines.slice(lines[0]?.startsWith('#!') ? 1 : 0)) {
    if (!line.startsWith('//')) break;
    header.push(line.replace(/^\/\/ ?/, ''));
  }
  writeSync(1, `${header.join('\n').trim()}\n`);
  process.exit(0);
}
