/**
 * What every phase of a walk reads (walk.ts): the run's writer, its pinned spec and plan, the
 * tools, the effects and the walk's options, and what stays fixed for the whole walk (the step
 * limit, the spend cap, how the run is judged, its planner). Made once per walk, before its first
 * step, never per step; the phases write only through the writer.
 */
import { usdToCents } from '../core/money.ts';
import { compilePlan, type ExecutionPlan, type RunState } from '../core/run/index.ts';
import type { WorkflowSpec } from '../core/spec/index.ts';
import type { EventWaits, Planner, VersionRecord } from '../ports/index.ts';
import type { Effects } from './effects.ts';
import type { RunGovernance } from './governance.ts';
import type { RunWriter } from './run-writer.ts';
import { templatePlanner } from './template-planner.ts';
import type { ToolRegistry } from './tool-registry.ts';

export interface WalkOptions {
  /**
   * Asked before each step: true stops the walk at that step boundary, committing what it wrote
   * (a worker shutting down, or one that lost the run's lease).
   */
  readonly shouldStop?: () => boolean;
  /** The policy and writ every proposal is checked against (absent: the core checks only). */
  readonly governance?: RunGovernance;
  /**
   * Aborted (with the CancelRequest as its reason) when a person cancels the run: the walk stops
   * at the next step boundary or when the current tool call returns or throws, and finishes the
   * run as cancelled. The tool gets the signal in its context.
   */
  readonly signal?: AbortSignal;
  /** Fills the open model slots of each step (docs/planner.md); the template planner by default. */
  readonly planner?: Planner;
  /**
   * Aborted by an `immediate` pause: the call in progress of an idempotent tool is cut (the tool
   * gets the signal) and left in flight, its outcome unrecorded, to be called again with the same
   * idempotency key on resume. Any other tool's call is let finish: repeating it could repeat its effect.
   */
  readonly interrupt?: AbortSignal;
  /** Where a wait for an event finds arrivals and sleeps (the store's); absent: replaying, or no store. */
  readonly eventWaits?: EventWaits;
  /**
   * A worker firing due waits in a batch: the walk stops at the first step boundary after a wait
   * ended in it (committing `wait.ended`), so many fires are recorded before any of their runs'
   * next steps is walked; the caller goes on holding the run and walks the rest later.
   */
  readonly yieldAfterWait?: boolean;
}

/** The most steps (node executions) any run takes, whatever its spec's `limits.maxSteps` says. */
export const MAX_STEPS_PER_RUN = 1000;

/** Where a phase sends the walk: on to the next step boundary, or stop here (and commit). */
export type Flow = 'next' | 'stop';

function loopCounts(s: RunState): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(s.loops)) out[k] = v.items.length;
  return out;
}

/** One walk of one run. */
export interface Walk {
  readonly w: RunWriter;
  readonly spec: WorkflowSpec;
  readonly plan: ExecutionPlan;
  readonly tools: ToolRegistry;
  readonly fx: Effects;
  readonly o: WalkOptions;
  readonly planner: Planner;
  /** The most steps this run takes: its spec's limit, at most MAX_STEPS_PER_RUN. */
  readonly maxSteps: number;
  /** The spec's spend cap, in integer cents. */
  readonly capCents: number;
  /** A simulated run (a test, a shadow): it asks nobody. */
  readonly simulated: boolean;
  /** The status the run's checks judge it as: its root's `judgedAs` (simulated), else its version's. */
  readonly judgedAs: string;
}

export function walkOf(
  w: RunWriter,
  version: VersionRecord,
  tools: ToolRegistry,
  fx: Effects,
  o: WalkOptions,
): Walk {
  const s = w.state;
  const spec = version.spec;
  // The plan grows when a loop's count is recorded (its body joins it once per item): compiled
  // again then, and only then.
  let loops = Object.keys(s.loops).length;
  let plan = compilePlan(spec, loopCounts(s));
  return {
    w,
    spec,
    get plan() {
      const n = Object.keys(s.loops).length;
      if (n !== loops) {
        loops = n;
        plan = compilePlan(spec, loopCounts(s));
      }
      return plan;
    },
    tools,
    fx,
    o,
    planner: o.planner ?? templatePlanner,
    maxSteps: Math.min(spec.limits.maxSteps, MAX_STEPS_PER_RUN),
    capCents: usdToCents(spec.limits.maxCostUsd),
    simulated: s.mode !== undefined,
    judgedAs: s.judgedAs ?? s.versionStatus,
  };
}
