// `mpay mcp`: the MCP server of src/mcp/ on the run's IO and Factory.
import type { Factory } from '../../factory.js';
import type { McpOptions } from '../../mcp/mcp-server.js';

export async function runMcp(opts: McpOptions, f: Factory): Promise<void> {
  const { serveMcp } = await import('../../mcp/mcp-server.js');
  await serveMcp(f, opts);
}
