// The layer check (scripts/check-layers.js) is what enforces the one direction of imports: it must pass on
// src/ as it is, and fail on a deliberate violation of each kind it claims to see, dynamic ones included.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, tempDir } from './helpers.js';

const script = join(root, 'scripts', 'check-layers.js');
const check = (dir?: string) =>
  spawnSync(process.execPath, [script, ...(dir ? [dir] : [])], { encoding: 'utf8' });

describe('the layer check', () => {
  it('passes on src/ as it is', () => {
    const r = check();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/check-layers: \d+ modules, every import in its direction/);
  });

  it('fails on a copy of src/ with deliberate violations, dynamic import() and importLazily included', () => {
    const dir = tempDir();
    cpSync(join(root, 'src'), dir, { recursive: true });
    writeFileSync(
      join(dir, 'api', 'probe.ts'),
      "export const p = async () => (await import('../ui/output.js')).clean;\n",
    );
    writeFileSync(
      join(dir, 'flows', 'probe.ts'),
      "import { importLazily } from '../lazy-import.js';\nexport const p = () => importLazily<unknown>('@inquirer/prompts');\n",
    );
    writeFileSync(join(dir, 'sandbox', 'probe.ts'), "export { Client } from '../api/client.js';\n");
    mkdirSync(join(dir, 'commands', 'probe'));
    writeFileSync(
      join(dir, 'commands', 'probe', 'command.ts'),
      "import { Journal } from '../../journal/journal.js';\nexport const p = Journal;\n",
    );
    const r = check(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('api/probe.ts -> ui/output.ts: api/ may not import ui/');
    expect(r.stderr).toContain(
      'flows/probe.ts -importLazily()-> @inquirer/prompts: flows/ may not load @inquirer/prompts',
    );
    expect(r.stderr).toContain('sandbox/probe.ts -> api/client.ts: sandbox/ may not import api/');
    expect(r.stderr).toContain(
      'commands/probe/command.ts -> journal/journal.ts: cli/ may not import journal/',
    );
  });
});
