// The root help from the commands' own metadata (#47 item 2), and a mistyped global flag before the command
// (#47 item 3). The help and the hook are oclif's, loaded from the bundle: they run through bin/run.js.
import type { Command } from '@oclif/core/command';
import { Config } from '@oclif/core/config';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MpayHelp, rootGroups } from '../src/commands/base/help.js';
import { COMMANDS } from '../src/execute.js';
import { root, sandbox } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

const loadable = (id: string, helpGroup?: unknown) => ({ id, helpGroup }) as unknown as Command.Loadable;

it('a new command is listed without editing the help: declared, or last under SET-UP when it declares none', () => {
  const groups = Object.fromEntries(
    rootGroups([
      loadable('login', { section: 'GETTING STARTED', order: 1 }),
      loadable('zeta', { section: 'PAYMENTS', order: 0 }),
      loadable('deposit', { section: 'PAYMENTS', order: 1 }),
      loadable('vault:open', { section: 'READING', order: 3 }),
      loadable('vault:close', { section: 'READING', order: 2 }),
      loadable('brandnew'),
      loadable('logout', { section: 'SET-UP', order: 1 }),
    ]),
  );
  expect(groups['PAYMENTS']).toEqual(['zeta', 'deposit']);
  expect(groups['READING']).toEqual(['vault']);
  expect(groups['SET-UP']).toEqual(['logout', 'brandnew']);
  expect(groups['SUPPORT']).toEqual([]);
});

/** The help oclif shows, its lines kept instead of printed. */
class HeldHelp extends MpayHelp {
  readonly lines: string[] = [];
  protected override log(...args: string[]): void {
    this.lines.push(...args.join(' ').split('\n'));
  }
}

it('no summary has a line break, and a topic lists each summary folded whole, never broken mid-line', async () => {
  const summaries = Object.entries(COMMANDS as Record<string, { summary?: string }>);
  for (const [id, c] of summaries) {
    expect(c.summary, id).toBeTruthy();
    expect(c.summary, id).not.toMatch(/[\r\n]/);
  }
  const width = 80;
  // every topic: each proper prefix of a command's id (withdraw, withdraw:batch)
  const topics = new Set(
    Object.keys(COMMANDS).flatMap((id) =>
      id
        .split(':')
        .slice(1)
        .map((_w, n) =>
          id
            .split(':')
            .slice(0, n + 1)
            .join(':'),
        ),
    ),
  );
  for (const topic of topics) {
    // a config a topic: oclif's list renames the commands it lists (withdraw:batch to "withdraw batch")
    const help = new HeldHelp(await Config.load({ root }), { maxWidth: width, stripAnsi: true });
    await help.showHelp([topic]);
    const at = help.lines.indexOf('COMMANDS');
    expect(at, topic).toBeGreaterThan(0);
    const rows = help.lines.slice(at + 1);
    // a row's summary starts in the column; its next lines are indented to it
    for (const [i, line] of rows.entries()) {
      const next = rows[i + 1];
      if (!next || !/^ {5,}\S/.test(next)) continue;
      // a line that is followed by more of the same summary was full: the next word would not fit on it
      const word = next.trim().split(' ')[0]!;
      expect(line.length + 1 + word.length, `${topic}: "${line}" / "${next}"`).toBeGreaterThan(width);
    }
    // and each subcommand's summary is there whole, once the fold's line breaks are joined
    const joined = rows.join('\n').replace(/\n +/g, ' ');
    for (const [id, c] of summaries)
      if (id.startsWith(`${topic}:`) && !id.slice(topic.length + 1).includes(':'))
        expect(joined, id).toContain(c.summary!);
  }
});
