/**
 * Tools files: a YAML or JSON file (`*.yaml`, `*.yml`, `*.json`) given to --tools or KEEL_TOOLS,
 * told from a tool pack module by its extension. Its top-level sections declare tools as data:
 * `tools:` declares HTTP tools, `mcp:` names MCP servers whose approved tools become registry
 * entries (docs/tools.md; the approval is the lock file `keel tools approve <file>` writes beside
 * it). Any other key is refused, naming it. It is reviewed configuration, not code.
 *
 * Reads files and hands sections to app; never connects to a server itself.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { parseYamlWith } from '../core/spec/index.ts';
import type { ToolDefinition } from '../ports/index.ts';

export const TOOLS_FILE_EXTENSIONS = ['.yaml', '.yml', '.json'];
const SECTIONS = ['mcp', 'tools'];

/** True when `path` names a tools file (data), not a tool pack module (code). */
export function isToolsFile(path: string): boolean {
  return TOOLS_FILE_EXTENSIONS.includes(extname(path).toLowerCase());
}

/** Where a registered tool comes from, for `keel tools ls`. */
export interface ToolOrigin {
  readonly kind: 'mcp';
  readonly server: string;
  readonly mcpTool: string;
  readonly transport: 'stdio' | 'http';
  readonly schemaHash: string;
}

export interface LoadedToolsFile {
  readonly tools: ToolDefinition[];
  readonly origins: ReadonlyMap<string, ToolOrigin>;
  /** Closes every connection and child process the file's tools started. */
  close(): Promise<void>;
}

/** A tools file's parsed top-level mapping; `file` names it in messages. */
export function readToolsFile(file: string): Record<string, unknown> {
  const refuse = (problem: string) =>
    new KeelError(ErrorCode.usage, `--tools: ${file}: ${problem}`, { field: 'tools', file, problem });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw refuse(`cannot read it: ${(e as Error).message}`);
  }
  // The bridge specs and policies are read through (JSON is YAML): input limits, duplicate keys,
  // alias bombs and problems located by line, a spec_invalid error naming each.
  const doc: unknown = parseYamlWith(text, file, (_c, value) => value ?? null);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw refuse(`expected a mapping with ${SECTIONS.map((s) => `\`${s}:\``).join(' or ')}`);
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!SECTIONS.includes(k))
      throw refuse(
        `${k}: not a section of a tools file (a tools file has ${SECTIONS.map((s) => `\`${s}:\``).join(', ')})`,
      );
  return o;
}

/** Loads a tools file: its HTTP tools and its MCP servers' approved tools (nothing connects until a call). */
export async function loadToolsFile(file: string): Promise<LoadedToolsFile> {
  const doc = readToolsFile(file);
  const tools: ToolDefinition[] = [];
  const origins = new Map<string, ToolOrigin>();
  let close = async () => {};
  if (doc.tools !== undefined) {
    // Loaded here, not at start-up: commands without tools never read the adapters.
    const { httpToolsFromSection } = await import('../app/index.ts');
    tools.push(...httpToolsFromSection(doc.tools, file));
  }
  if (doc.mcp !== undefined) {
    // Loaded here, not at start-up: a command without MCP tools never reads the MCP SDK.
    const { mcpToolsFrom } = await import('../app/mcp-tools.ts');
    const mcp = await mcpToolsFrom(doc.mcp, { file });
    tools.push(...mcp.tools);
    for (const e of mcp.entries) origins.set(e.name, { kind: 'mcp', ...withoutName(e) });
    close = mcp.close;
  }
  return { tools, origins, close };
}

function withoutName<T extends { name: string }>(e: T): Omit<T, 'name'> {
  const { name: _name, ...rest } = e;
  return rest;
}
