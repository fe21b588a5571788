// The root help from the commands' own metadata (#47 item 2), and a mistyped global flag before the command
// (#47 item 3). The help and the hook are oclif's, loaded from the bundle: they run through bin/run.js.
import type { Command } from '@oclif/core/command';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rootGroups } from '../src/commands/base/help.js';
import { sandbox } from './helpers.js';

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
