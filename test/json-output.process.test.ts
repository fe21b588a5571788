// The --json contract: each command's output matches its schema (src/ui/json-schemas.ts), run for real
// against a sandbox, and the JSON Schema files in docs/json/ are what the schemas export today.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { root } from './helpers.js';

it('docs/json holds what the schemas export today', () => {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'json-schemas.js'), '--check'], {
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
});
