/**
 * `/mcp` under `keel serve`: the MCP server of the caller's tenant over streamable HTTP, stateless
 * (one server and transport per request, JSON answers), authenticated with the tenant's API key
 * like the rest of the API. The key picks the tenant; nothing in the request body can change it.
 *
 * The MCP SDK (with its zod-to-json-schema and its own ajv, ~120 files) is loaded by the first
 * authenticated request to /mcp, not when the server starts.
 */
import { Hono } from 'hono';
import { notesOf } from '../../app/index.ts';
import type { Keel } from '../../app/keel.ts';
import { authenticate } from '../auth.ts';

export function mcpRoutes(keel: Keel, log: (e: unknown) => void) {
  const app = new Hono();
  app.all('/mcp', async (c) => {
    const principal = await authenticate(keel, c.req.header('authorization'), notesOf(c));
    const [{ WebStandardStreamableHTTPServerTransport }, { keelMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('./keel-mcp-server.ts'),
    ]);
    const server = keelMcpServer(keel, principal.tenant, { log });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  return app;
}
