// `mpay history`'s list: unknown rows found by --status unknown, and doctor's key checks left out
// unless --probes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, customerArgs, requestCount, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';

let a: Awaited<ReturnType<typeof sandbox>>;
// Sections 2 to 8 share nothing that one counts (each has its own folders, and the servers it counts are its
// own), so they run at once, in two groups: the batch's paced waits (2) beside the sections whose work is in
// processes of their own (7, 8), so that its pace is kept by a worker with little else to do; then the
// in-process ones (3 to 6). Section 1 (every request to sandbox a counted) runs between the groups, the
// doctor's count of a's key checks after them.
beforeAll(async () => {
  a = await sandbox();
});
afterAll(async () => {
  await a?.close();
});

describe.concurrent('4. unknown rows in history', () => {
  it('`history --status unknown` finds the transaction whose answer was lost, and the table says unknown', async () => {
    const s = await sandbox({ faults: ['drop-after'], rate: 1, faultPaths: ['/payments/initiate'] });
    try {
      const env = cliEnv(s, tempDir());
      const lost = await mpay(['deposit', ...customerArgs(), '--yes', '--json'], { env });
      expect(lost.code, lost.stderr).toBe(8);
      const unknown = await mpay(['history', '--status', 'unknown', '--json'], { env });
      expect(unknown.code, unknown.stderr).toBe(0);
      const rows = unknown.json() as { reference: string }[];
      expect(rows).toHaveLength(1);
      const table = await mpay(['history'], { env, width: 120 });
      const line = table.stdout.split('\n').find((l) => l.includes(rows[0]!.reference));
      expect(line, table.stdout).toMatch(/\bunknown\b/);
      // settled, it is unknown no more
      const settled = await mpay(['history', 'resolve', rows[0]!.reference, '--as', 'landed'], { env });
      expect(settled.code, settled.stderr).toBe(0);
      expect((await mpay(['history', '--status', 'unknown', '--json'], { env })).json()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe("8. doctor's key checks in history", () => {
  it('are journaled but left out of `mpay history` unless --probes; the table says how many and how', async () => {
    const env = cliEnv(a, tempDir());
    const before = await requestCount(a, 'POST /payments/withdraw/initiate');
    const doctor = await mpay(['doctor', '--check-api-key', '--json'], { env });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    // the check went out (a withdraw initiate of credentials only), journaled
    expect(await requestCount(a, 'POST /payments/withdraw/initiate')).toBe(before + 1);
    const pay = await mpay(['deposit', ...customerArgs(), '--yes', '--json'], { env });
    expect(pay.code, pay.stderr).toBe(0);
    const list = (await mpay(['history', '--json'], { env })).json() as { kind: string; probe?: true }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.kind).toBe('deposit');
    const all = (await mpay(['history', '--probes', '--json'], { env })).json() as { probe?: true }[];
    expect(all.filter((r) => r.probe)).toHaveLength(1);
    const table = await mpay(['history'], { env, width: 120 });
    expect(table.stderr).toContain(
      '1 API-key check of doctor or login left out, none of which made anything; --probes shows them.',
    );
  });
});
