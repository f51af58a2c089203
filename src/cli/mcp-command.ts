/**
 * `keel mcp`: Keel as an MCP server over stdio for one tenant (--tenant or KEEL_TENANT): the
 * tenant's LIVE workflows as tools that start governed runs (server/mcp/keel-mcp-server.ts).
 * stdout carries only the protocol; anything else goes to stderr. It stops when the client closes
 * stdin or on SIGTERM/SIGINT, then the store closes. No tool here approves anything.
 */
import type { Command } from 'commander';
import type { WithContext } from './context.ts';

export function registerMcpCommand(program: Command, withContext: WithContext): void {
  program
    .command('mcp')
    .description("serve the tenant's LIVE workflows as MCP tools over stdio (approvals stay with people)")
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const { keelMcpServer } = await import('../server/mcp/keel-mcp-server.ts');
        const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
        const server = keelMcpServer(ctx.keel, ctx.tenant, {
          log: (e) => process.stderr.write(`keel mcp: ${e instanceof Error ? e.message : String(e)}\n`),
        });
        const closed = new Promise<void>((resolve) => {
          server.onclose = () => resolve();
          process.stdin.once('end', () => resolve());
          for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve());
        });
        await server.connect(new StdioServerTransport());
        await closed;
        await server.close();
      }),
    );
}
