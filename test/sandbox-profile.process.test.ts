// `mpay --profile b sandbox`: its Try line, pasted as printed, logs in profile b.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrinted, sandbox, tempDir } from './helpers.js';
import { mpay } from './in-process.js';
import { spawnMpay } from './helpers.js';

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

describe.concurrent('8. the sandbox for a profile, and the doctor in history', () => {
  it('`mpay --profile b sandbox`: its Try line, pasted where no profile is named, logs in profile b', async () => {
    const cfg = tempDir();
    const { child, done } = spawnMpay(['--profile', 'b', 'sandbox', '--port', '0'], { MPAY_CONFIG_DIR: cfg });
    try {
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      await new Promise<void>((resolve) => {
        const look = () => /Ctrl-C stops it/.test(out) && resolve();
        look();
        child.stdout!.on('data', look);
      });
      const line = /^Try: (.*)$/m.exec(out)![1]!;
      expect(line).toContain(' --profile b ');
      const login = await runPrinted(line, { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off' }, 'bash');
      expect(login.code, login.stderr).toBe(0);
      const list = await mpay(['profiles', 'list', '--json'], {
        env: { MPAY_CONFIG_DIR: cfg, MPAY_KEYRING: 'off' },
      });
      expect((list.json() as { name: string }[]).map((p) => p.name)).toEqual(['b']);
    } finally {
      child.kill('SIGINT');
      await done;
    }
  });
});
