// The quick tier's one rule: no process of its own. Every way node:child_process starts one throws here,
// named, so a test that spawns mpay, tmux, a keyring daemon or a shell fails at once and says where it
// belongs: a file named *.process.test.ts (vitest.config.ts). syncBuiltinESMExports makes the named ESM
// imports (`import { spawn } from 'node:child_process'`) see the replacement too.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of starters) {
  (childProcess as unknown as Record<string, unknown>)[name] = (command: unknown) => {
    throw new Error(
      `the quick tier starts no process (child_process.${name} of ${String(command)}): ` +
        'a test that needs one belongs in a *.process.test.ts file',
    );
  };
}
syncBuiltinESMExports();
