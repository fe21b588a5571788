// docs/commands.md, the command reference, written from the commands themselves: oclif's manifest and
// mpay's own help class (the bundle's MpayHelp), so that it says what `mpay <command> --help` says.
//
//   node scripts/commands-doc.js          writes docs/commands.md (npm run docs:commands)
//   node scripts/commands-doc.js --check [FILE]
//                                         exits 1 when docs/commands.md (or FILE) is not what it would
//                                         write (test/commands-doc.process.test.ts runs it)
//
// It reads the bundle (dist/mpay.cjs) and oclif.manifest.json: `npm run bundle` first after a change.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { helpOnAsk } from './script-help.js';

helpOnAsk(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'docs', 'commands.md');
const { Config } = await import('@oclif/core/config');
const { MpayHelp } = createRequire(import.meta.url)(join(root, 'dist', 'mpay.cjs'));

/** What the help prints for `argv`, captured, at 100 columns and without colour. */
async function helpText(config, show) {
  const lines = [];
  const help = new MpayHelp(config, { maxWidth: 100, stripAnsi: true });
  help.log = (...args) => lines.push(args.join(' '));
  await show(help);
  return stripVTControlCharacters(lines.join('\n'))
    .replace(/[ \t]+$/gm, '')
    .trim();
}

async function render() {
  // The columns a help is laid out to come from the terminal; the reference is written at 100 whatever it is.
  process.env.COLUMNS = '100';
  const config = await Config.load({ root });
  const commands = config.commands
    .filter((c) => !c.hidden && c.pluginName === config.pjson.name)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const name = (c) => `mpay ${c.id.replace(/:/g, ' ')}`;
  const anchor = (c) => name(c).replace(/ /g, '-');
  const out = [
    '# Commands',
    '',
    '<!-- Written by `npm run docs:commands` (scripts/commands-doc.js) from the commands themselves; a test',
    '     fails when it is stale. Do not edit it by hand. -->',
    '',
    'Every command of mpay, as `mpay <command> --help` prints it. Topics are space-separated',
    '(`mpay deposit initiate`), and the global flags go before the command or after it.',
    '',
    ...commands.map((c) => `- [\`${name(c)}\`](#${anchor(c)}): ${(c.summary ?? '').replace(/</g, '\\<')}`),
    '',
    '## mpay --help',
    '',
    '```text',
    await helpText(config, (h) => h.showRootHelp()),
    '```',
  ];
  for (const c of commands) {
    out.push('', `## ${name(c)}`, '', '```text');
    out.push(await helpText(config, (h) => h.showCommandHelp(c)));
    out.push('```');
  }
  return `${out.join('\n')}\n`;
}

const text = await render();
const check = process.argv.indexOf('--check');
if (check >= 0) {
  const file = process.argv[check + 1] ?? target;
  let now = '';
  try {
    now = readFileSync(file, 'utf8');
  } catch {
    // missing: stale
  }
  if (now !== text) {
    console.error(`commands-doc: ${file} is not what the commands say: run npm run docs:commands`);
    process.exitCode = 1;
  }
} else {
  writeFileSync(target, text);
  console.error(`commands-doc: docs/commands.md written`);
}
