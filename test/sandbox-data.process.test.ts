// The sandbox's data file (--data, src/sandbox/data-log.ts): a restart keeps every transaction in its
// state, tokens and balances; a cut last line is recovered; garbage, a file of another version and a file
// that is not one are errors that name the place; a file of the sandbox before the log (version 1) is
// converted; compaction, also while requests arrive, keeps the state. Real HTTP to a real sandbox.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noStack, run, sandbox, tempDir } from './helpers.js';
import { initiate, tokenOf } from './sandbox-calls.js';
import { mpay } from './in-process.js';
import { LogBehindSnapshotError } from '../src/sandbox/state-file.js';

// The tests share nothing (each its own folder and sandboxes) and run at once.
describe('the sandbox data file', { concurrent: true }, () => {
  it('garbage, a file of another version and a file that is not one are errors naming the place', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    await initiate(first, t, 'deposit');
    await first.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    const cases: [string, string, RegExp][] = [
      [
        'garbage inside',
        [lines[0], lines[1], 'x%$#garbage', ...lines.slice(2)].join('\n'),
        /line 3 \(byte \d+\): not a record \(damaged or not JSON\)/,
      ],
      [
        'garbage last',
        `${lines.join('\n')}{"no":"record"}\n`,
        new RegExp(`line ${lines.length} \\(byte \\d+\\): not a record of the sandbox`),
      ],
      [
        'a change of nothing',
        `${lines.join('\n')}["u",9,"pending",null,null,0,0,null]\n`,
        /a change of transaction 9, which is not there/,
      ],
      [
        'another format',
        lines.join('\n').replace('"mpay_sandbox":2', '"mpay_sandbox":3'),
        /line 1 \(byte 0\): a sandbox data file of format 3, which this mpay does not read/,
      ],
      [
        'another version',
        '{"version":7,"transactions":[]}',
        /line 1 \(byte 0\): a sandbox data file of version 7/,
      ],
      ['not one', '\u0000\u0001binary\n\u00ff', /line 1 \(byte 0\): not a sandbox data file/],
    ];
    for (const [i, [what, text, message]] of cases.entries()) {
      const f = join(dir, `${what.replace(/ /g, '-')}.log`);
      writeFileSync(f, text);
      await expect(sandbox({ dataFile: f }), what).rejects.toThrow(message);
      expect(readFileSync(f, 'utf8'), `${what}: left as it was`).toBe(text);
      // mpay sandbox says it in one line, with the file's name, and exits with the code of a local file:
      // the process's own exit code once, the command in-process for the others.
      const argv = ['sandbox', '--port', '0', '--data', f];
      const r = i === 0 ? await run(argv) : await mpay(argv);
      expect(r.code, what).toBe(9);
      expect(r.stderr).toContain(f);
      expect(r.stderr).toMatch(message);
      expect(noStack(r.stderr)).toBe(true);
    }
  }, 120_000);

  it('a log that does not reach the place its snapshot covers (cut, emptied, deleted) is refused, naming both files, and nothing is written', async () => {
    const dir = tempDir();
    const file = join(dir, 'sandbox.log');
    const first = await sandbox({ dataFile: file });
    const t = await tokenOf(first);
    for (let i = 0; i < 3; i++) await initiate(first, t, 'deposit');
    const all = first.state.list();
    // its shutdown writes the snapshot, which covers the whole log
    await first.close();
    const log = readFileSync(file);
    const snap = readFileSync(`${file}.snapshot`);
    const lastLine = log.lastIndexOf(10, log.length - 2) + 1;
    const cases: [string, Buffer | undefined, RegExp][] = [
      ['cut before its last line', log.subarray(0, lastLine), new RegExp(`ends at byte ${lastLine},`)],
      [
        'cut inside its last line',
        log.subarray(0, lastLine + 5),
        new RegExp(`ends at byte ${lastLine + 5},`),
      ],
      ['emptied', Buffer.alloc(0), /is empty \(0 bytes\)/],
      ['deleted', undefined, /is missing/],
    ];
    for (const [i, [what, bytes, state]] of cases.entries()) {
      const d = join(dir, String(i));
      mkdirSync(d);
      const f = join(d, 'sandbox.log');
      if (bytes) writeFileSync(f, bytes);
      writeFileSync(`${f}.snapshot`, snap);
      let err: unknown;
      try {
        await (await sandbox({ dataFile: f })).close();
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(LogBehindSnapshotError);
      const { message, hint } = err as LogBehindSnapshotError;
      expect(message, what).toMatch(state);
      expect(message, what).toContain(`${f} `);
      expect(message, what).toContain(`${f}.snapshot`);
      if (bytes?.length) expect(message, what).toContain(`before byte ${log.length}, where its snapshot`);
      expect(hint, what).toMatch(/Put the whole log back .*or.* move the snapshot aside/);
      // nothing written: the snapshot and the log as they were, no log made, no lock left
      expect(readFileSync(`${f}.snapshot`).equals(snap), what).toBe(true);
      if (bytes) expect(readFileSync(f).equals(bytes), what).toBe(true);
      expect(readdirSync(d).sort(), what).toEqual(
        bytes ? ['sandbox.log', 'sandbox.log.snapshot'] : ['sandbox.log.snapshot'],
      );
      // mpay sandbox: exit 9, both files and the mend named, no stack
      const argv = ['sandbox', '--port', '0', '--data', f];
      const r = i === 0 ? await run(argv) : await mpay(argv);
      expect(r.code, what).toBe(9);
      expect(r.stderr, what).toContain(`${f}.snapshot`);
      expect(r.stderr, what).toMatch(/move the snapshot aside: mv /);
      expect(noStack(r.stderr), what).toBe(true);
      expect(readFileSync(`${f}.snapshot`).equals(snap), what).toBe(true);
    }
    // The mends the hint names: the snapshot moved aside starts from the cut log alone; the whole log put
    // back starts from the snapshot, with every transaction.
    const cut = join(dir, '0', 'sandbox.log');
    renameSync(`${cut}.snapshot`, `${cut}.snapshot.aside`);
    const fromLog = await sandbox({ dataFile: cut });
    await fromLog.close();
    expect(fromLog.state.list()).toEqual(all.slice(0, -1));
    const emptied = join(dir, '2', 'sandbox.log');
    writeFileSync(emptied, log);
    const restored = await sandbox({ dataFile: emptied });
    await restored.close();
    expect(restored.state.list()).toEqual(all);
    expect(restored.logs.find((l) => l.startsWith('read '))).toMatch(/from its snapshot/);
  }, 120_000);
});
