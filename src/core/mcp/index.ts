export {
  CAUTION_FIELDS,
  type CautionField,
  type CautionFlags,
  type CautionMerge,
  type CautionOverride,
  type CautionProblem,
  cautionFromAnnotations,
  cautionRank,
  type McpAnnotations,
  type McpToolOverride,
  mergeCaution,
} from './mcp-caution.ts';
export {
  type ApprovedMcpServer,
  type ApprovedMcpTool,
  approvedTool,
  connectionHash,
  MCP_LOCK_VERSION,
  type McpLock,
  parseMcpLock,
} from './mcp-lock.ts';
export {
  DEFAULT_MCP_TIMEOUT_MS,
  MCP_SERVER_NAME_RE,
  type McpServerConfig,
  type McpTransportConfig,
  parseMcpSection,
} from './mcp-server-config.ts';
export {
  hintsOf,
  type McpListedTool,
  mcpToolDescriptor,
  mcpToolHash,
  mcpToolName,
} from './mcp-tool-descriptor.ts';
