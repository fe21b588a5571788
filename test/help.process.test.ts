import { afterAll, beforeAll, expect, it } from 'vitest';
import { COMMANDS } from '../src/execute.js';
import { cliEnv, run, runPrinted, sandbox, tempDir } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it('mpay --help lists every command, each under the section its class declares', async () => {
  const r = await run(['--help'], { env: { COLUMNS: '80' } });
  expect(r.code).toBe(0);
  const listed = [...r.stdout.matchAll(/^ {2}([a-z]+) +\S/gm)].map((m) => m[1]);
  const tops = [...new Set(Object.keys(COMMANDS).map((id) => id.split(':')[0]!))];
  for (const name of [...tops, 'autocomplete']) expect(listed, name).toContain(name);
  for (const name of ['run', 'replay', 'sandbox', 'history'])
    expect(r.stdout, name).toMatch(new RegExp(`\\n {2}${name} +\\S`));
  expect(r.stdout).toMatch(/SUPPORT\n {2}api .*\n {2}replay .*\n {2}run +Run scenario files/);
  expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  // every command of mpay's own, or its topic, declares its place
  const declares = (id: string) =>
    Boolean((COMMANDS as Record<string, { helpGroup?: unknown }>)[id]!.helpGroup);
  for (const top of tops)
    expect(
      Object.keys(COMMANDS)
        .filter((id) => id.split(':')[0] === top)
        .some(declares),
      top,
    ).toBe(true);
});

it('a mistyped global flag before the command is answered with the nearest one, exit 2', async () => {
  const cases: Array<[string[], string, string]> = [
    [['--jsno', 'countries'], '--jsno', '--json'],
    [['--profle', 'x', 'countries'], '--profle', '--profile'],
    [['--base-ur=http://127.0.0.1:9', 'countries'], '--base-ur', '--base-url'],
  ];
  for (const [argv, typed, meant] of cases) {
    const r = await run(argv, { env: { MPAY_CONFIG_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`mpay: Nonexistent flag: ${typed}\nhint: Did you mean ${meant}? \``);
    expect(r.stdout).toBe('');
  }
  // after the command, as before
  const after = await run(['countries', '--jsno'], { env: { MPAY_CONFIG_DIR: tempDir() } });
  expect(after.code).toBe(2);
  expect(after.stderr).toMatch(/Did you mean --json\?/);
  // with --json later on the line, the error is a JSON document
  const json = await run(['--profle', 'x', 'countries', '--json'], { env: { MPAY_CONFIG_DIR: tempDir() } });
  expect(json.code).toBe(2);
  expect(json.json().error).toMatchObject({ kind: 'usage', message: 'Nonexistent flag: --profle' });
  // nothing near: where to look
  const far = await run(['--zzzzzz', 'countries'], { env: { MPAY_CONFIG_DIR: tempDir() } });
  expect(far.code).toBe(2);
  expect(far.stderr).toContain('hint: `mpay --help` lists the global flags and the commands');
});

it('the mended line the hint prints runs as written, against the server the environment names', async () => {
  const r = await run(['--jsno', 'countries'], { env: { MPAY_CONFIG_DIR: tempDir() } });
  const line = /`(mpay [^`]+)`/.exec(r.stderr)![1]!;
  expect(line).toBe('mpay --json countries');
  const ran = await runPrinted(line, cliEnv(sb, tempDir()));
  expect(ran.code, ran.stderr).toBe(0);
  expect(ran.json().some((c: { code: string }) => c.code === 'GH')).toBe(true);
});
