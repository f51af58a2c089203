/**
 * The `mcp:` section of a tools file as Keel tools. `mcpToolsFrom` registers each server's approved
 * tools from the lock file beside the tools file, without connecting; a call connects (once per
 * server), refuses when the server no longer offers the tool or its schema hash differs from the
 * approved one, and otherwise calls it through the MCP SDK client. `approveMcpTools` connects to
 * every server, lists its tools and writes the lock file (`keel tools approve`).
 *
 * Never connects at load: replay, forks and `history` read the ledger and touch no server. `close()`
 * ends every client and child process this module started.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import {
  type ApprovedMcpServer,
  type ApprovedMcpTool,
  approvedTool,
  connectionHash,
  MCP_LOCK_VERSION,
  type McpLock,
  type McpServerConfig,
  mcpToolDescriptor,
  mcpToolHash,
  mcpToolName,
  parseMcpLock,
  parseMcpSection,
} from '../../core/mcp/index.ts';
import { JSON_LIMITS, measureValue } from '../../core/spec/index.ts';
import type { ToolDefinition } from '../../ports/index.ts';
import type { McpConnection } from './mcp-connection.ts';
import { mcpError } from './mcp-error.ts';

/** The MCP client (and its SDK) is loaded when a server is first connected to, not before. */
const connectionClass = async () => (await import('./mcp-connection.ts')).McpConnection;

/** The largest tool answer recorded, as JSON (a larger one fails the step). */
export const MAX_MCP_RESULT_BYTES = 1024 * 1024;
/** How much of an `isError` answer's text a step failure quotes. */
const ERROR_EXCERPT = 500;

export interface McpToolsOptions {
  /** The tools file the section was read from: names it in messages, locates the lock file and relative paths. */
  readonly file: string;
  /** Reads Keel's environment for a stdio server's `env` names; process.env by default. */
  readonly env?: (name: string) => string | undefined;
}

/** Where an MCP tool of the registry comes from. */
export interface McpToolEntry {
  readonly name: string;
  readonly server: string;
  readonly mcpTool: string;
  readonly transport: 'stdio' | 'http';
  readonly schemaHash: string;
}

export interface McpTools {
  readonly tools: ToolDefinition[];
  readonly entries: McpToolEntry[];
  /** Closes every client and child process started for these tools. */
  close(): Promise<void>;
}

/** The lock file of a tools file: `tools.yaml` → `tools.mcp-lock.json`, beside it. */
export function mcpLockPath(file: string): string {
  const abs = resolve(file);
  return join(dirname(abs), `${basename(abs, extname(abs))}.mcp-lock.json`);
}

function readLock(file: string): McpLock | undefined {
  const path = mcpLockPath(file);
  if (!existsSync(path)) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new KeelError(ErrorCode.usage, `${basename(path)}: not JSON: ${(e as Error).message}`, {
      file: path,
    });
  }
  return parseMcpLock(v, basename(path));
}

const notApproved = (file: string, server: string, why: string) =>
  new KeelError(ErrorCode.usage, `${file}: MCP server "${server}" ${why}: run keel tools approve ${file}`, {
    file,
    server,
    field: `mcp.${server}`,
  });

/** The registry entries of a `mcp:` section: its servers' approved tools, calls made on demand. */
export async function mcpToolsFrom(section: unknown, o: McpToolsOptions): Promise<McpTools> {
  const servers = parseMcpSection(section, o.file);
  const lock = readLock(o.file);
  const env = o.env ?? ((n: string) => process.env[n]);
  const baseDir = dirname(resolve(o.file));
  const connections: McpConnection[] = [];
  const tools: ToolDefinition[] = [];
  const entries: McpToolEntry[] = [];
  const McpConnection = await connectionClass();
  for (const server of servers) {
    const approved = lock?.servers[server.name];
    if (!approved) throw notApproved(o.file, server.name, 'is not approved yet');
    if (approved.connection !== connectionHash(server))
      throw notApproved(o.file, server.name, 'is reached differently than when it was approved');
    const connection = new McpConnection(server, { baseDir, env });
    connections.push(connection);
    for (const t of selected(server, approved, o.file)) {
      const descriptor = mcpToolDescriptor(server.name, t, server.overrides[t.name]);
      tools.push({ ...descriptor, handler: handlerFor(connection, t, o.file, !descriptor.idempotent) });
      entries.push({
        name: descriptor.name,
        server: server.name,
        mcpTool: t.name,
        transport: server.transport.kind,
        schemaHash: t.hash,
      });
    }
  }
  const names = new Set<string>();
  for (const t of tools) {
    if (names.has(t.name))
      throw new KeelError(ErrorCode.usage, `${o.file}: two MCP tools are both named "${t.name}" in Keel`, {
        file: o.file,
        tool: t.name,
      });
    names.add(t.name);
  }
  return {
    tools,
    entries,
    close: async () => {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}

/** The approved tools a server's `include` keeps (all when absent); an override must name one of them. */
function selected(server: McpServerConfig, approved: ApprovedMcpServer, file: string): ApprovedMcpTool[] {
  const byName = new Map(approved.tools.map((t) => [t.name, t]));
  for (const name of [...(server.include ?? []), ...Object.keys(server.overrides)])
    if (!byName.has(name))
      throw new KeelError(
        ErrorCode.usage,
        `${file}: MCP server "${server.name}" offered no tool "${name}" when it was approved (it offered ${[...byName.keys()].join(', ') || 'none'})`,
        { file, server: server.name, tool: name },
      );
  return server.include ? server.include.map((n) => byName.get(n)!) : [...approved.tools];
}

/** The handler of an approved tool: checks the server still offers it unchanged, then calls it. */
function handlerFor(
  connection: McpConnection,
  approved: ApprovedMcpTool,
  file: string,
  /** A call that must not be repeated: one lost after it was sent is outcome_unknown. */
  unknownOnLoss: boolean,
): ToolDefinition['handler'] {
  const server = connection.server.name;
  const tool = approved.name;
  const what = `MCP server "${server}" tool "${tool}"`;
  return async (args, ctx) => {
    const listed = (await connection.tools(tool)).get(tool);
    if (!listed) throw mcpError('mcp_tool_missing', `${what}: the server no longer offers it`);
    const now = mcpToolHash(listed);
    if (now !== approved.hash)
      throw mcpError(
        'mcp_tool_changed',
        `${what}: its schema changed since it was approved (approved ${approved.hash}, now ${now}); nothing was called: review it and run keel tools approve ${file}`,
      );
    const r = await connection.call(tool, args, {
      idempotencyKey: ctx.idempotencyKey,
      unknownOnLoss,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    // Whatever the server echoes of a secret it was handed is masked before anything keeps it.
    const mask = connection.mask();
    if (r.isError === true) {
      const text = mask
        .text((r.content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : [])).join(' '))
        .slice(0, ERROR_EXCERPT);
      throw mcpError('mcp_tool_error', `${what} answered an error: ${text || '(no text)'}`);
    }
    const answer = r.structuredContent ?? { content: r.content ?? [] };
    // Measured before anything walks it (masking, sizing, canonical form).
    const breach = measureValue(answer, { ...JSON_LIMITS, maxBytes: Number.MAX_SAFE_INTEGER });
    if (breach)
      throw mcpError(
        'mcp_result_too_large',
        `${what}: its answer is past the limit ${breach.limit} (${breach.max})${breach.field ? ` at ${breach.field}` : ''}`,
      );
    const output = mask.value(answer);
    const size = Buffer.byteLength(JSON.stringify(output));
    if (size > MAX_MCP_RESULT_BYTES)
      throw mcpError(
        'mcp_result_too_large',
        `${what}: its answer is ${size} bytes, over the ${MAX_MCP_RESULT_BYTES}-byte limit`,
      );
    return output;
  };
}

/** What approving found for one tool, against the lock file before. */
export interface McpApprovalChange {
  readonly server: string;
  readonly tool: string;
  readonly name: string;
  readonly change: 'new' | 'changed' | 'unchanged' | 'removed';
  readonly hash?: string;
}

/**
 * Connects to every server of the section, lists its tools and writes the lock file beside the
 * tools file (atomically, by rename): what is approved is exactly what the servers offer now.
 */
export async function approveMcpTools(
  section: unknown,
  o: McpToolsOptions,
): Promise<{ lockFile: string; changes: McpApprovalChange[] }> {
  const servers = parseMcpSection(section, o.file);
  let before: McpLock | undefined;
  try {
    before = readLock(o.file);
  } catch {
    before = undefined; // a damaged lock is replaced
  }
  const env = o.env ?? ((n: string) => process.env[n]);
  const baseDir = dirname(resolve(o.file));
  const out: Record<string, ApprovedMcpServer> = {};
  const changes: McpApprovalChange[] = [];
  const McpConnection = await connectionClass();
  for (const server of servers) {
    const connection = new McpConnection(server, { baseDir, env });
    try {
      const listed = [...(await connection.tools()).values()].map(approvedTool);
      // Checks overrides and names against what is offered now, before anything is written.
      const probe: ApprovedMcpServer = { connection: connectionHash(server), tools: listed };
      for (const t of selected(server, probe, o.file))
        mcpToolDescriptor(server.name, t, server.overrides[t.name]);
      out[server.name] = probe;
      const old = new Map((before?.servers[server.name]?.tools ?? []).map((t) => [t.name, t.hash]));
      for (const t of listed) {
        const was = old.get(t.name);
        changes.push({
          server: server.name,
          tool: t.name,
          name: mcpToolName(server.name, t.name),
          change: was === undefined ? 'new' : was === t.hash ? 'unchanged' : 'changed',
          hash: t.hash,
        });
        old.delete(t.name);
      }
      for (const name of old.keys())
        changes.push({
          server: server.name,
          tool: name,
          name: mcpToolName(server.name, name),
          change: 'removed',
        });
    } finally {
      await connection.close();
    }
  }
  const lockFile = mcpLockPath(o.file);
  const lock: McpLock = { version: MCP_LOCK_VERSION, servers: out };
  const tmp = `${lockFile}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(lock, null, 2)}\n`);
  renameSync(tmp, lockFile);
  return { lockFile, changes };
}
