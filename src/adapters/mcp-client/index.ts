export type { McpConnection, McpConnectionOptions } from './mcp-connection.ts';
export { mcpError } from './mcp-error.ts';
export {
  approveMcpTools,
  MAX_MCP_RESULT_BYTES,
  type McpApprovalChange,
  type McpToolEntry,
  type McpTools,
  type McpToolsOptions,
  mcpLockPath,
  mcpToolsFrom,
} from './mcp-tools.ts';
