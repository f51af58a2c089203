/**
 * Tools as the engine sees them: a descriptor (what may be checked) and a handler (the effect).
 * The engine calls a handler only after a recorded allow decision, with an idempotency key derived
 * from (run, step, attempt) that the tool should use to make a repeated call a no-op.
 */
import type { ToolDescriptor } from '../core/tools/index.ts';
import type { Delta } from '../core/world/index.ts';

export interface ToolContext {
  readonly tenant: string;
  readonly runId: string;
  readonly step: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  /**
   * Aborted when a person cancels the run while this call is in progress (Engine.cancel). A
   * long-running tool should stop early and throw; the walk then records the step as failed with
   * code `cancelled` and finishes the run as cancelled. Absent when nothing can cancel the call.
   */
  readonly signal?: AbortSignal;
}

export type ToolHandler = (args: Record<string, unknown>, ctx: ToolContext) => unknown;

const WITH_DELTAS = Symbol.for('keel.toolResultWithDeltas');

/** A tool's output together with the changes it made to the run's world. */
export interface ToolResultWithDeltas {
  readonly [WITH_DELTAS]: true;
  readonly output: unknown;
  readonly deltas: readonly Delta[];
}

/**
 * Return this from a handler to report world changes: `create` a resource, `replace` or `retract`
 * one at the version you read. The step completes only if every delta applies to the run's world.
 */
export function withDeltas(output: unknown, deltas: readonly Delta[]): ToolResultWithDeltas {
  return { [WITH_DELTAS]: true, output, deltas };
}

export function isResultWithDeltas(v: unknown): v is ToolResultWithDeltas {
  return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[WITH_DELTAS] === true;
}

/** What a tool's reconcile check found out about a call whose outcome was never recorded. */
export interface ReconcileFinding {
  /** Whether the effect of the call with `ctx.idempotencyKey` happened. */
  readonly happened: boolean;
  /** When it happened: the result the call returned (or its equivalent), recorded as the step's output. */
  readonly output?: unknown;
}

/**
 * Looks on the tool's own side (by idempotency key) whether a call happened. Called only for a
 * non-idempotent tool found in flight after a crash, before the run would be suspended; it must
 * never perform the effect itself. Throwing leaves the decision to a person.
 */
export type ToolReconciler = (
  args: Record<string, unknown>,
  ctx: ToolContext,
) => ReconcileFinding | Promise<ReconcileFinding>;

/** What a simulation is told: the call's context, marked simulated (there is no abort signal). */
export interface SimulationContext extends Omit<ToolContext, 'signal'> {
  readonly simulated: true;
}

/**
 * A pure stand-in for a tool's handler in simulated runs (TESTING tests, SHADOW runs): it returns
 * what the call would return — a value of the tool's `result` schema, with `withDeltas` where the
 * tool reports world changes — and must never act on anything. It never sees a secret's value
 * (a secret argument reads `[secret NAME]`). Without one, a `write` or `external` tool's step is
 * suppressed in a simulated run (docs/lifecycle.md).
 */
export type ToolSimulator = (args: Record<string, unknown>, ctx: SimulationContext) => unknown;

export interface ToolDefinition extends ToolDescriptor {
  readonly handler: ToolHandler;
  readonly reconcile?: ToolReconciler;
  readonly simulate?: ToolSimulator;
}

/** The code of an error a handler throws when its call's outcome cannot be known (see `outcomeUnknown`). */
export const OUTCOME_UNKNOWN = 'outcome_unknown';

/**
 * What a handler throws when it cannot tell whether its effect happened (a timeout or a dropped
 * connection after the request was sent): the walk records no outcome, never calls a tool that
 * is not idempotent again, and asks its reconcile check or suspends the run as outcome_unknown.
 */
export function outcomeUnknown(message: string): Error {
  return Object.assign(new Error(message), { code: OUTCOME_UNKNOWN });
}
