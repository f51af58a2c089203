/**
 * The tools a Keel instance can call, by name. Registration checks each descriptor, so a
 * misdeclared tool fails at start-up rather than in the middle of a run.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { assertToolDescriptor, type ToolDescriptor } from '../core/tools/index.ts';
import type { ToolDefinition } from '../ports/index.ts';

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(definitions: readonly ToolDefinition[] = []) {
    for (const d of definitions) this.register(d);
  }

  register(d: ToolDefinition): void {
    assertToolDescriptor(d);
    if (typeof d.handler !== 'function') {
      throw new KeelError(ErrorCode.usage, `tool "${d.name}": handler: expected a function`, {
        tool: d.name,
      });
    }
    if (d.reconcile !== undefined && typeof d.reconcile !== 'function') {
      throw new KeelError(ErrorCode.usage, `tool "${d.name}": reconcile: expected a function`, {
        tool: d.name,
      });
    }
    if (this.tools.has(d.name))
      throw new KeelError(ErrorCode.usage, `tool "${d.name}" is registered twice`, { tool: d.name });
    this.tools.set(d.name, d);
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
      ({ handler: _handler, reconcile: _reconcile, ...descriptor }) => descriptor,
    );
  }
}
