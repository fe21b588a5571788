// `mpay mcp` inside the single executable (test/exe.ts builds dist/mpay-<platform>-<arch>): the MCP SDK's
// server, its stdio transport and its message schemas are packages kept outside the snapshot
// (scripts/bundle-config.js lazyPackages), loaded when the command runs. The executable is copied alone
// into a folder with no node_modules and started, as an assistant's client starts it, by the SDK's own
// client with a PATH that holds nothing but it; it lists the tools, reads the balances of the sandbox and
// runs a deposit that its own `mpay history` shows (the journal's SQLite, another package kept outside).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliEnv, run, sandbox, tempDir } from './helpers.js';
import { builtExe } from './exe.js';

const exe = await builtExe();

let sb: Awaited<ReturnType<typeof sandbox>>;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('mpay mcp in the single executable', () => {
  it('lists the tools, reads the balances and runs a deposit that history shows', async () => {
    const dir = tempDir('mpay-mcp-exe-');
    mkdirSync(join(dir, 'bin'));
    const file = join(dir, 'bin', 'mpay');
    copyFileSync(exe, file);
    const env = { ...cliEnv(sb, tempDir()), PATH: join(dir, 'bin'), HOME: tempDir('mpay-mcp-exe-home-') };
    // `"command": "mpay"` as docs/mcp.md's snippet has it, found on the client's PATH
    const transport = new StdioClientTransport({
      command: 'mpay',
      args: ['mcp'],
      env,
      cwd: dir,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'mpay-exe-test', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['balances', 'deposit', 'withdraw']));
      const balances = await client.callTool({ name: 'balances', arguments: {} });
      expect(balances.isError, JSON.stringify(balances)).toBeFalsy();
      const listed = (balances.structuredContent as { balances: { code: string; total_balance: unknown }[] })
        .balances;
      expect(listed.map((b) => b.code)).toContain('GHS');
      expect(listed[0]).toHaveProperty('total_balance');
      const deposit = await client.callTool({
        name: 'deposit',
        arguments: {
          currency: 'GHS',
          country: 'GH',
          amount: '12',
          first_name: 'Ama',
          phone: '+233201234567',
          email: 'ama@example.com',
          gateway: '1',
          reference: 'mcp-exe-dep-1',
        },
      });
      expect(deposit.isError, JSON.stringify(deposit)).toBeFalsy();
      expect(deposit.structuredContent).toMatchObject({ kind: 'deposit', reference: 'mcp-exe-dep-1' });
    } finally {
      await client.close();
    }
    expect(stderr).toMatch(/mpay mcp: serving 14 tools on stdio/);
    const history = await run(['history', '--json'], { command: [file], cwd: dir, env });
    expect(history.code, history.stderr).toBe(0);
    const record = (history.json() as { reference: string; via?: string; steps: { step: string }[] }[]).find(
      (r) => r.reference === 'mcp-exe-dep-1',
    );
    expect(record).toMatchObject({ via: 'mpay mcp' });
    expect(record!.steps.at(-1)).toMatchObject({ step: 'processed', outcome: 'ok' });
  });
});
