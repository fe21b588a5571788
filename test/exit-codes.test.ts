import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { root, sandbox } from './helpers.js';

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(() => sb.close());

it.concurrent(
  'the bundle the process tests spawn was built from the sources as they are (vitest builds it first)',
  () => {
    const newest = (dir: string): number =>
      Math.max(
        ...readdirSync(dir, { withFileTypes: true }).map((e) =>
          e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
        ),
      );
    expect(statSync(join(root, 'dist', 'mpay.cjs')).mtimeMs).toBeGreaterThanOrEqual(
      newest(join(root, 'src')),
    );
  },
);
