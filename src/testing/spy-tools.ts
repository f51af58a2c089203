/**
 * Tools for engine tests that count their own calls, so a test can assert "the tool was never
 * called" from the tool's side rather than from the ledger's.
 */
import type { ToolContext, ToolDefinition } from '../ports/index.ts';

export interface SpyTool extends ToolDefinition {
  readonly calls: { args: Record<string, unknown>; ctx: ToolContext }[];
}

export function spyTool(
  name: string,
  o: Partial<Omit<ToolDefinition, 'name' | 'handler'>> & { handler?: ToolDefinition['handler'] } = {},
): SpyTool {
  const calls: SpyTool['calls'] = [];
  const inner = o.handler ?? ((args: Record<string, unknown>) => ({ ok: true, echo: args }));
  const tool: ToolDefinition = {
    name,
    description: o.description ?? `${name} (test spy)`,
    args: o.args ?? { type: 'object' },
    destructive: o.destructive ?? false,
    effect: o.effect ?? 'write',
    idempotent: o.idempotent ?? true,
    scopes: o.scopes ?? [],
    ...(o.cost ? { cost: o.cost } : {}),
    ...(o.result ? { result: o.result } : {}),
    ...(o.approval ? { approval: o.approval } : {}),
    ...(o.reconcile ? { reconcile: o.reconcile } : {}),
    ...(o.simulate ? { simulate: o.simulate } : {}),
    handler: (args, ctx) => {
      calls.push({ args, ctx });
      return inner(args, ctx);
    },
  };
  // Not a field of the tool (registration refuses unknown fields): the spy's own record.
  return Object.defineProperty(tool, 'calls', { value: calls, enumerable: false }) as SpyTool;
}
