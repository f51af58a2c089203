/**
 * The execute and record-result phases of a tool step: the allowed call made through the effects
 * (with the walk's cancel signal, and for an idempotent tool an immediate pause's), then its
 * outcome recorded — `step.completed` only if its postconditions hold (the output fits the tool's
 * result schema and declared cost, its deltas apply to a trial world), else `step.failed` and the
 * run ends failed; a simulated call that was suppressed ends the run only if a later step reads
 * its output. An outcome that is unknown (replaying a crash) or cut by an immediate pause records
 * nothing: the step stays in flight, for settle-in-flight.ts.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { PayloadOf } from '../core/ledger/index.ts';
import { laterReaderOf } from '../core/spec/index.ts';
import { formatArgProblem, resultCostCents, resultCostProblem, validateValue } from '../core/tools/index.ts';
import { applyDeltas, type Delta, type World } from '../core/world/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import type { StepOutcome } from './effects.ts';
import { finishIfCancelled, reasonOf } from './step-boundary.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { Walk, WalkOptions } from './walk-context.ts';

/** Whether a call may be made again with the same key: an idempotent tool, or a simulated call. */
export function repeatable(tool: ToolDefinition | undefined, a: PayloadOf<'step.allowed'>): boolean {
  return tool?.idempotent === true || a.mode === 'simulated';
}

/** The tool an allowed call goes to, which must still be registered. */
export function toolOf(tools: ToolRegistry, a: PayloadOf<'step.allowed'>): ToolDefinition {
  const tool = tools.get(a.tool);
  if (!tool)
    throw new KeelError(ErrorCode.unknownTool, `tool ${a.tool} is no longer registered`, { tool: a.tool });
  return tool;
}

/**
 * Both of a walk's signals as one, made once per walk (its signals do not change between its calls):
 * `AbortSignal.any` is costly enough (Node 20) to show per call in a profile of the HTTP path.
 */
const eitherOf = new WeakMap<
  AbortSignal,
  { readonly interrupt: AbortSignal; readonly either: AbortSignal }
>();

/** The signal a call gets: the walk's cancellation, and an immediate pause's for an idempotent tool. */
export function callSignal(tool: ToolDefinition, o: WalkOptions): AbortSignal | undefined {
  const cuttable = tool.idempotent && o.interrupt;
  if (!cuttable) return o.signal;
  if (!o.signal) return o.interrupt;
  const made = eitherOf.get(o.signal);
  if (made?.interrupt === o.interrupt) return made.either;
  const either = AbortSignal.any([o.signal, o.interrupt!]);
  eitherOf.set(o.signal, { interrupt: o.interrupt!, either });
  return either;
}

/**
 * Calls the tool and records its outcome; false when the outcome is unknown (replay of a crash).
 * The walk's own steps do the same inline (tool-step.ts), without this extra await.
 */
export async function invokeStep(walk: Walk, a: PayloadOf<'step.allowed'>): Promise<boolean> {
  const tool = toolOf(walk.tools, a);
  return recordOutcome(walk, tool, a, await walk.fx.invoke(tool, a, walk.w.state, callSignal(tool, walk.o)));
}

/**
 * Records a call's outcome; false when it is unknown (replay of a crash) or the call was cut by an
 * immediate pause. A call that fails after the run was cancelled is recorded as failed with code
 * `cancelled`, and the run finishes as cancelled; one that returns is recorded as it returned (its
 * effect happened).
 */
export function recordOutcome(
  walk: Walk,
  tool: ToolDefinition,
  a: PayloadOf<'step.allowed'>,
  outcome: StepOutcome,
): boolean {
  const { w, fx, o } = walk;
  // Cut by an immediate pause: the call stays in flight, unrecorded, and is made again on resume —
  // unless the run's end is held (parallel-step.ts): it is recorded, and the run ends, not pauses.
  if (!outcome.ok && tool.idempotent && o.interrupt?.aborted && !o.signal?.aborted && !w.ending) return false;
  // The outcome of a call that must not be repeated is committed before the next effect.
  if (!repeatable(tool, a) && !('unknown' in outcome)) w.markUnreproducible();
  if (outcome.ok) {
    const failure = postconditionFailure(tool, outcome, w.state.world);
    if (failure) {
      w.add('step.failed', { step: a.step, tool: a.tool, proposalId: a.proposalId, error: failure });
      w.add('run.finished', {
        status: 'failed',
        outputs: w.state.outputs,
        reason: `${a.tool}: ${failure.message}`,
      });
      return true;
    }
    w.add('step.completed', {
      step: a.step,
      tool: a.tool,
      proposalId: a.proposalId,
      output: outcome.output,
      // What the call cost: the allow's (fixed, from an argument) plus any the result declares.
      costCents: a.costCents + resultCostCents(tool, outcome.output),
      ...(outcome.deltas ? { deltas: outcome.deltas } : {}),
    });
    return true;
  }
  if ('unknown' in outcome) return false;
  if ('suppressed' in outcome) {
    w.add('step.suppressed', {
      step: a.step,
      tool: a.tool,
      proposalId: a.proposalId,
      reason: outcome.suppressed,
    });
    // The run goes on only if no later step reads the output this step does not have.
    const reader = laterReaderOf(walk.spec, a.step);
    if (reader)
      w.add('run.finished', {
        status: 'failed',
        code: 'needs_simulation',
        outputs: w.state.outputs,
        reason: `needs_simulation: step ${reader} reads the output of step ${a.step}, but ${a.tool} has no simulate; give ${a.tool} a simulate to run this workflow simulated`,
      });
    return true;
  }
  const error = o.signal?.aborted
    ? { code: 'cancelled', message: `${a.tool} was stopped: ${reasonOf(o.signal.reason)}` }
    : outcome.error;
  w.add('step.failed', { step: a.step, tool: a.tool, proposalId: a.proposalId, error });
  if (finishIfCancelled(w, fx, o)) return true;
  w.add('run.finished', {
    status: 'failed',
    outputs: w.state.outputs,
    reason: `${a.tool}: ${outcome.error.message}`,
  });
  return true;
}

/**
 * A step's result commits only if its postconditions hold: the output fits the tool's declared
 * result schema, and its deltas apply to a trial copy of the run's world. The failure, if any.
 */
function postconditionFailure(
  tool: ToolDefinition,
  outcome: { output: unknown; deltas?: readonly Delta[] },
  world: World,
): { code: string; message: string } | undefined {
  if (tool.result) {
    const problems = validateValue(tool.result, outcome.output);
    if (problems.length > 0) {
      return { code: 'postcondition_failed', message: `output ${problems.map(formatArgProblem).join('; ')}` };
    }
  }
  // A declared result cost is a postcondition too: the call cannot pass as free.
  const cost = resultCostProblem(tool, outcome.output);
  if (cost) return { code: 'postcondition_failed', message: cost };
  if (outcome.deltas) {
    const r = applyDeltas(world, outcome.deltas);
    if (!r.ok) return { code: r.failure.code, message: r.failure.message };
  }
  return undefined;
}
