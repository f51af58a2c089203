/**
 * An MCP server's tool as a Keel tool descriptor: named `<server>.<tool>`, arguments from its
 * `inputSchema`, result from its `outputSchema`, flags from its annotations merged with the tools
 * file's caution-only override, scope `<server>.*` (the pattern a writ names to cover the server).
 * The schema hash covers what Keel judges a call by (input and output schema, the four hints), so
 * a server that changes any of it no longer matches what a person approved.
 *
 * Pure; an override toward less caution is a usage error naming server, tool and field.
 */
import { hashOf } from '../canonical/index.ts';
import { ErrorCode, KeelError } from '../errors.ts';
import { type JsonSchema, type ToolDescriptor, toolContradiction } from '../tools/index.ts';
import {
  cautionFromAnnotations,
  type McpAnnotations,
  type McpToolOverride,
  mergeCaution,
} from './mcp-caution.ts';

/** An MCP tool as a server lists it (`tools/list`), with the parts Keel reads. */
export interface McpListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: McpAnnotations;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The annotations Keel reads, and only those (a title or a vendor field changes nothing). */
export function hintsOf(a: unknown): McpAnnotations {
  const out: Record<string, boolean> = {};
  if (typeof a === 'object' && a !== null)
    for (const h of HINTS) {
      const v = (a as Record<string, unknown>)[h];
      if (typeof v === 'boolean') out[h] = v;
    }
  return out;
}

/** The hash of what Keel judges a call of the tool by. */
export function mcpToolHash(t: McpListedTool): string {
  return hashOf({
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema ?? null,
    annotations: hintsOf(t.annotations),
  });
}

/** The Keel name of a server's tool: `<server>.<tool>`, any character a Keel name refuses as `_`. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}.${tool.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/** A JSON Schema as Keel's validator reads it: without a `$schema` naming another draft. */
function schemaFor(s: JsonSchema): JsonSchema {
  const { $schema: _drop, ...rest } = s;
  return rest;
}

/**
 * The descriptor of `tool` of `server`, with the tools file's override applied (caution only, and
 * a cost). An override that makes it contradict itself (`destructive: true` on a read-only tool
 * without raising its effect) is refused naming the override's field.
 */
export function mcpToolDescriptor(
  server: string,
  tool: McpListedTool,
  override: McpToolOverride = {},
): ToolDescriptor {
  const merged = mergeCaution(cautionFromAnnotations(tool.annotations), override);
  if (!merged.ok) {
    const p = merged.problems[0]!;
    throw new KeelError(
      ErrorCode.usage,
      `MCP server "${server}", tool "${tool.name}": overrides.${p.field}: ${JSON.stringify(p.to)} is less cautious than the server's ${JSON.stringify(p.from)}; an override may only add caution`,
      { server, tool: tool.name, field: p.field, from: p.from, to: p.to },
    );
  }
  const { effect, destructive, idempotent, approval } = merged.flags;
  const descriptor: ToolDescriptor = {
    name: mcpToolName(server, tool.name),
    description: tool.description ?? '',
    args: schemaFor(tool.inputSchema),
    ...(tool.outputSchema ? { result: schemaFor(tool.outputSchema) } : {}),
    effect,
    destructive,
    idempotent,
    ...(approval ? { approval } : {}),
    ...(override.cost ? { cost: override.cost } : {}),
    scopes: [`${server}.*`],
  };
  const c = toolContradiction(descriptor);
  if (c) {
    const field = c.field.split('.')[0] as keyof McpToolOverride;
    const where = override[field] !== undefined ? `overrides.${c.field}` : c.field;
    throw new KeelError(
      ErrorCode.usage,
      `MCP server "${server}", tool "${tool.name}": ${where}: ${c.problem}`,
      {
        server,
        tool: tool.name,
        field: c.field,
        problem: c.problem,
      },
    );
  }
  return descriptor;
}
