/**
 * A failure of an MCP tool call with a string code, the way a step failure records it. Apart from
 * mcp-connection.ts so the tools of a `mcp:` section can be described without loading the MCP SDK.
 */
export function mcpError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}
