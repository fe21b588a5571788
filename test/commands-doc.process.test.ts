// docs/commands.md is the commands' own help (#47 item 1): written by scripts/commands-doc.js from the
// manifest and mpay's help class, and current: a command, flag or summary changed without running
// `npm run docs:commands` fails here.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { COMMANDS } from '../src/execute.js';
import { root, tempDir } from './helpers.js';

const check = (file?: string) =>
  promisify(execFile)(process.execPath, [
    join(root, 'scripts', 'commands-doc.js'),
    '--check',
    ...(file ? [file] : []),
  ])
    .then(() => 0)
    .catch((err: { code: number }) => err.code);

it('docs/commands.md is what the commands say, and a hand edit or a stale copy is caught', async () => {
  expect(await check()).toBe(0);
  const doc = readFileSync(join(root, 'docs', 'commands.md'), 'utf8');
  for (const id of Object.keys(COMMANDS)) expect(doc, id).toContain(`\n## mpay ${id.replace(/:/g, ' ')}\n`);
  // a flag's description that is no longer what the command says
  const stale = join(tempDir(), 'commands.md');
  const edited = doc.replace(
    '--first-name=<value>      customer first name',
    '--first-name=<value>      first name',
  );
  expect(edited).not.toBe(doc);
  writeFileSync(stale, edited);
  expect(await check(stale)).toBe(1);
});
