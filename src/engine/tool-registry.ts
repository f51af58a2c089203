/**
 * The tools a Keel instance can call, by name. Registration checks each definition strictly (the
 * descriptor against the one schema, no unknown key, no contradiction: tool-descriptor.ts; the
 * handler, reconcile and simulate as functions) and keeps its normalised form, so a misdeclared
 * tool fails at start-up rather than in the middle of a run, and every check reads one form.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { parseToolDescriptor, type ToolDescriptor } from '../core/tools/index.ts';
import type { ToolDefinition } from '../ports/index.ts';

/** The keys of a definition beside its descriptor's. */
const DEFINITION_KEYS = ['handler', 'reconcile', 'simulate'] as const;

/**
 * A tool definition checked and normalised; a `usage` KeelError naming the tool (or `label`, e.g.
 * `tools[3]`, until its name is known) and the field otherwise.
 */
export function parseToolDefinition(d: unknown, label?: string): ToolDefinition {
  const o = (typeof d === 'object' && d !== null ? d : {}) as Record<string, unknown>;
  const { handler, reconcile, simulate, ...declared } = o;
  const descriptor = parseToolDescriptor(typeof d === 'object' && d !== null ? declared : d, {
    ...(label !== undefined ? { label } : {}),
    alsoKnown: DEFINITION_KEYS,
  });
  const fn = (field: string, v: unknown, required: boolean) => {
    if (v === undefined && !required) return;
    if (typeof v !== 'function')
      throw new KeelError(ErrorCode.usage, `tool "${descriptor.name}": ${field}: expected a function`, {
        tool: descriptor.name,
        field,
        problem: 'expected a function',
      });
  };
  fn('handler', handler, true);
  fn('reconcile', reconcile, false);
  fn('simulate', simulate, false);
  return {
    ...descriptor,
    handler: handler as ToolDefinition['handler'],
    ...(reconcile ? { reconcile: reconcile as ToolDefinition['reconcile'] } : {}),
    ...(simulate ? { simulate: simulate as ToolDefinition['simulate'] } : {}),
  };
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(definitions: readonly ToolDefinition[] = []) {
    for (const d of definitions) this.register(d);
  }

  /** Registers a definition (`label` names it in errors until its name is known). */
  register(d: ToolDefinition, label?: string): void {
    const t = parseToolDefinition(d, label);
    if (this.tools.has(t.name))
      throw new KeelError(ErrorCode.usage, `tool "${t.name}" is registered twice`, { tool: t.name });
    this.tools.set(t.name, t);
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Descriptors only: what a reviewer or a planner may see, never the handlers. */
  catalog(): ToolDescriptor[] {
    return [...this.tools.values()].map(
      ({ handler: _handler, reconcile: _reconcile, simulate: _simulate, ...descriptor }) => descriptor,
    );
  }
}
