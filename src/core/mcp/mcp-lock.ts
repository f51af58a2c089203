/**
 * The lock file beside a tools file (`<name>.mcp-lock.json`): what a person approved of each MCP
 * server with `keel tools approve` — a hash of how it is reached, and each tool it listed then
 * (schema, hints, hash). Keel registers the approved tools from it without connecting, and refuses
 * a call when the server's tool no longer hashes the same.
 *
 * Owns the lock's shape: building it and checking one read back. Pure.
 */
import { hashOf } from '../canonical/index.ts';
import { ErrorCode, KeelError } from '../errors.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import { hintsOf, type McpListedTool, mcpToolHash } from './mcp-tool-descriptor.ts';

export const MCP_LOCK_VERSION = 1;

export interface ApprovedMcpTool extends McpListedTool {
  readonly hash: string;
}

export interface ApprovedMcpServer {
  /** The hash of the server's transport (command, args, env names, cwd; or URL and header templates). */
  readonly connection: string;
  readonly tools: readonly ApprovedMcpTool[];
}

export interface McpLock {
  readonly version: typeof MCP_LOCK_VERSION;
  readonly servers: Readonly<Record<string, ApprovedMcpServer>>;
}

/** The hash of how a server is reached. */
export function connectionHash(s: McpServerConfig): string {
  return hashOf(s.transport);
}

/** A tool as the lock records it: only what Keel reads, and its hash. */
export function approvedTool(t: McpListedTool): ApprovedMcpTool {
  const hints = hintsOf(t.annotations);
  return {
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
    ...(Object.keys(hints).length > 0 ? { annotations: hints } : {}),
    hash: mcpToolHash(t),
  };
}

/** A lock file's content, checked; `file` names it in messages. */
export function parseMcpLock(v: unknown, file: string): McpLock {
  const bad = (problem: string): never => {
    throw new KeelError(
      ErrorCode.usage,
      `${file}: ${problem}; approve the tools file again (keel tools approve)`,
      {
        file,
        problem,
      },
    );
  };
  const o = v as Record<string, unknown> | null;
  if (typeof o !== 'object' || o === null || o.version !== MCP_LOCK_VERSION)
    return bad(`expected an MCP lock file of version ${MCP_LOCK_VERSION}`);
  if (typeof o.servers !== 'object' || o.servers === null) return bad('servers: expected a mapping');
  for (const [name, s] of Object.entries(o.servers as Record<string, unknown>)) {
    const srv = s as Record<string, unknown> | null;
    if (typeof srv?.connection !== 'string' || !Array.isArray(srv.tools))
      bad(`servers.${name}: expected a connection hash and a list of tools`);
    for (const t of (srv as { tools: unknown[] }).tools) {
      const tool = t as Record<string, unknown> | null;
      if (
        typeof tool?.name !== 'string' ||
        typeof tool.inputSchema !== 'object' ||
        tool.inputSchema === null ||
        typeof tool.hash !== 'string'
      )
        bad(`servers.${name}.tools: expected each tool's name, inputSchema and hash`);
      // A hand-edited schema would be approved without anyone seeing the server offer it.
      if (mcpToolHash(tool as unknown as McpListedTool) !== tool!.hash)
        bad(`servers.${name}: tool "${String(tool!.name)}": its recorded schema does not match its hash`);
    }
  }
  return o as unknown as McpLock;
}
