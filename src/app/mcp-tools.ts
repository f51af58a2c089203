/**
 * MCP servers' tools for the edges: the `mcp:` section of a tools file as registry entries, and
 * approving it (the lock file). The composition root names the MCP client adapter here only.
 */
export {
  approveMcpTools,
  type McpApprovalChange,
  type McpToolEntry,
  type McpTools,
  type McpToolsOptions,
  mcpLockPath,
  mcpToolsFrom,
} from '../adapters/mcp-client/index.ts';
