// Help and messages as a newcomer meets them: the grouped root help, a mistyped command answered with the
// nearest ones, a command's help with its arguments and required flags in USAGE and only the global flags
// that mean something for it, and every message in mpay's own style. Help and the unknown command go
// through bin/run.js (oclif loads the help class and the hook from the bundle); the rest runs in-process.
// The tests of a describe run at once, and a test's processes too: each waits on its own processes.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliEnv, customerArgs, root, run, runPrinted, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { nearest } from '../src/common/nearest.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

describe.concurrent('help', () => {
  it('the root help groups the commands, gives examples and says where to learn more, within 80 columns', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    const order = ['GETTING STARTED', 'PAYMENTS', 'READING', 'SET-UP', 'EXAMPLES', 'LEARN MORE'];
    const at = order.map((h) => r.stdout.indexOf(`\n${h}\n`));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(r.stdout).toMatch(/GETTING STARTED\n {2}login {8}.*\n {2}doctor {7}.*\n {2}demo /);
    expect(r.stdout).toMatch(/PAYMENTS\n {2}deposit .*\n {2}withdraw .*\n {2}status .*\n {2}wallet /);
    expect(r.stdout).toContain('$ mpay demo');
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(r.stdout).not.toContain('…');
  });

  it('a mistyped command names the nearest ones, in mpay style, exit 2', async () => {
    const r = await run(['depost']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mpay: unknown command "depost"\nhint: did you mean `mpay deposit`?\n');
    expect(nearest('hist', ['history', 'whoami'])).toEqual(['history']);
    expect(nearest('zzzzzz', ['history', 'whoami'])).toEqual([]);
  });

  it('a mistyped command with --json, before or after it, prints the error document on stdout, exit 2', async () => {
    const cases: [string[], string, string][] = [
      [['histroy', '--json'], 'histroy', 'history'],
      [['--json', 'deposti'], 'deposti', 'deposit'],
      [['history', 'shw', '--json'], 'history shw', 'history show'],
    ];
    const results = await Promise.all(cases.map(([argv]) => run(argv)));
    for (const [i, [argv, typed, near]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.json().error).toEqual({
        kind: 'usage',
        status: null,
        message: `unknown command "${typed}"`,
        fields: {},
        hint: `did you mean \`mpay ${near}\`?`,
      });
      expect(r.stderr).toBe(`mpay: unknown command "${typed}"\n`);
    }
  });

  it('USAGE names the arguments and required flags; a command lists only the global flags it takes', async () => {
    const [status, sandboxRun, depositRun, historyRun] = await Promise.all(
      ['status', 'sandbox', 'deposit', 'history'].map((c) => run([c, '--help'])),
    );
    expect(status!.stdout).toContain('$ mpay status HASH_TOKEN --status <value> [flags]');
    expect(status!.stdout).toMatch(/--status=<option>\s+\(required\)/);
    const sandboxHelp = sandboxRun!.stdout;
    expect(sandboxHelp).toContain('GLOBAL FLAGS\n  --json');
    for (const flag of ['--env', '--yes', '--base-url', '--timeout', '--no-input'])
      expect(sandboxHelp, flag).not.toContain(flag);
    // the profile its printed login line logs in to
    expect(sandboxHelp).toContain('--profile');
    const deposit = depositRun!.stdout;
    for (const flag of ['--profile', '--env', '--yes', '--no-input', '--dry-run'])
      expect(deposit, flag).toContain(flag);
    expect(historyRun!.stdout).not.toContain('--timeout');
  });
});

describe.concurrent('messages that lead somewhere', () => {
  it('mpay sandbox: a port that is not a number, and a port in use, say what is wrong and what to do', async () => {
    const bad = await run(['sandbox', '--port', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^mpay: Parsing --port: Expected an integer but received: abc\n/);
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const inUse = await mpay(['sandbox', '--port', String(port), '--json'], { env: {} });
      expect(inUse.code).toBe(2);
      expect(inUse.json().error.message).toBe(`Port ${port} on 127.0.0.1 is already in use`);
      expect(inUse.json().error.hint).toMatch(/--port 0 for any free one/);
    } finally {
      busy.close();
    }
  });

  it('warnings and errors all read "mpay: …", never oclif\'s "›   Error:"', async () => {
    const outputs = await Promise.all([
      run(['countries', '--bogus']),
      run(['deposit', '--amount']),
      run(['status']),
      mpay(['deposit', ...customerArgs({ currency: 'XXX' })], { env: cliEnv(sb, tempDir()) }),
    ]);
    for (const o of outputs) {
      expect(o.code).toBe(2);
      expect(o.stderr).toMatch(/^mpay: /);
      expect(o.stderr).not.toMatch(/›|Error:/);
    }
  });
});

describe.concurrent('every help fits the terminal', () => {
  const ids = Object.keys(
    (JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as { commands: object }).commands,
  ).map((id) => id.split(':'));

  // One process renders every command's help (test/fixtures/all-help.mjs, the same text as `mpay ID
  // --help`, which a test below compares for one command): a spawn a command was slow under load. One
  // process a width, shared by the tests that read it.
  const rendered = new Map<number, Promise<string>>();
  const allHelp = (width: number): Promise<string> => {
    if (!rendered.has(width))
      rendered.set(
        width,
        promisify(execFile)(process.execPath, [join(root, 'test', 'fixtures', 'all-help.mjs')], {
          env: { ...process.env, OCLIF_COLUMNS: String(width) },
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        }).then((r) => r.stdout),
      );
    return rendered.get(width)!;
  };

  for (const width of [60, 80, 120])
    it(`at ${width} columns no line of any command's --help is wider`, async () => {
      const wide: string[] = [];
      let id = '';
      let seen = 0;
      for (const line of (await allHelp(width)).split('\n')) {
        if (line.startsWith('\u0000 ')) {
          id = line.slice(2);
          seen++;
        } else if ([...line].length > width) wide.push(`${id}: ${[...line].length}: ${line}`);
      }
      expect(seen).toBe(ids.length);
      expect(wide).toEqual([]);
    });

  it("an argument's and a flag's choices are whole words at 60 and 80 columns, none cut inside a key", async () => {
    type Choices = { options?: string[]; hidden?: boolean; helpValue?: string };
    const manifest = (
      JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {
        commands: Record<string, { args?: Record<string, Choices>; flags?: Record<string, Choices> }>;
      }
    ).commands;
    let checked = 0;
    for (const width of [60, 80]) {
      const blocks = new Map(
        (await allHelp(width))
          .split('\u0000 ')
          .slice(1)
          // an id as the manifest writes it (some are listed with spaces)
          .map((b) => [b.slice(0, b.indexOf('\n')).replace(/ /g, ':'), b] as const),
      );
      for (const [id, c] of Object.entries(manifest))
        for (const a of [...Object.values(c.args ?? {}), ...Object.values(c.flags ?? {})])
          for (const o of a.hidden || a.helpValue ? [] : (a.options ?? [])) {
            const word = new RegExp(`(^|[\\s,:])${o.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(,|>|\\s|$)`, 'm');
            expect(blocks.get(id), `${id} at ${width}: ${o}`).toMatch(word);
            checked++;
          }
    }
    // config get and config set name their keys so, and every --status and --env its choices
    expect(checked).toBeGreaterThanOrEqual(2 * 100);
  });

  it('renders each help as the command itself does', async () => {
    const [all, r] = await Promise.all([
      allHelp(60),
      run(['withdraw', 'batch', 'confirm', '--help'], { env: { OCLIF_COLUMNS: '60' } }),
    ]);
    const one = all.split('\u0000 ').find((b) => b.startsWith('withdraw:batch:confirm\n'))!;
    expect(one.slice('withdraw:batch:confirm\n'.length)).toBe(r.stdout);
  });

  it('a folded example still pastes as one command', async () => {
    const own = await sandbox();
    try {
      const r = await run(['deposit', '--help'], { env: { OCLIF_COLUMNS: '60' } });
      const lines = r.stdout.split('\n');
      const start = lines.findIndex((l) => l.includes('$ mpay deposit --currency GHS --country GH'));
      expect(start).toBeGreaterThan(0);
      const folded: string[] = [];
      for (let i = start; ; i++) {
        folded.push(lines[i]!);
        if (!lines[i]!.endsWith('\\')) break;
      }
      expect(folded.length).toBeGreaterThan(1);
      const pasted = folded.join('\n').replace(/^\s*\$ /, '');
      const out = await runPrinted(pasted, cliEnv(own, tempDir()));
      expect(out.code, out.stderr).toBe(0);
      expect(out.json()).toMatchObject({ kind: 'deposit', status: 'pending' });
    } finally {
      await own.close();
    }
  });
});
