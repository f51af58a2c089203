/**
 * Tools as the engine sees them: a descriptor (what may be checked) and a handler (the effect).
 * The engine calls a handler only after a recorded allow decision, with an idempotency key derived
 * from (run, step, attempt) that the tool should use to make a repeated call a no-op.
 */
import type { ToolDescriptor } from '../core/tools/index.ts';

export interface ToolContext {
  readonly tenant: string;
  readonly runId: string;
  readonly step: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
}

export type ToolHandler = (args: Record<string, unknown>, ctx: ToolContext) => unknown;

export interface ToolDefinition extends ToolDescriptor {
  readonly handler: ToolHandler;
}
