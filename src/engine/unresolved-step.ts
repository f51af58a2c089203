/**
 * A step whose arguments could not be built (step-args.ts threw). A model provider that could not
 * answer (model_unavailable, after the provider's own bounded retries) holds the run as paused
 * (`run.suspended`, model_unavailable) before anything of the step acts: `resume` asks the model
 * again, and the slots answered before the outage are reused; replaying, the record says where
 * this happened. The store's errors and a replay's stop the walk without an entry (rethrown, for
 * the caller to report). Anything else — a source or planner that throws, a value with no
 * canonical form — ends the run failed, recorded, instead of leaving it running forever.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { excerpt } from '../core/spec/index.ts';
import type { Flow, Walk } from './walk-context.ts';

/** Records what the failure to resolve the step means for the run, or rethrows it. */
export function unresolvedStep(walk: Walk, step: string, tool: string, e: unknown): Flow {
  const { w, fx } = walk;
  const s = w.state;
  if (e instanceof KeelError && e.code === ErrorCode.modelUnavailable) {
    const recorded = fx.recordedOutage?.(s);
    w.add('run.suspended', {
      reason: 'model_unavailable',
      step,
      tool,
      message: recorded?.step === step ? recorded.message : excerpt(e.message, 500),
    });
    // Held: no walker keeps it (a claim takes only running runs); resume walks it again.
    w.leaseWith({ op: 'release' });
    return 'next';
  }
  if (!endsRunOnResolve(e)) throw e;
  w.add('run.finished', { status: 'failed', outputs: s.outputs, reason: resolveFailure(step, e) });
  return 'stop';
}

/**
 * Errors that stop the walk without ending the run: the store's (a lost head, an unreachable
 * store) and a replay's (the ledger disagrees or lacks a value), which the caller reports.
 */
const WALK_STOPPERS: ReadonlySet<string> = new Set([
  ErrorCode.headConflict,
  ErrorCode.storeUnavailable,
  ErrorCode.replayDiverged,
  ErrorCode.replaySourceMissing,
  ErrorCode.replayUnavailable,
  ErrorCode.policyUnavailable,
]);

function endsRunOnResolve(e: unknown): boolean {
  return !(e instanceof KeelError && WALK_STOPPERS.has(e.code));
}

/** `step refund: could not build its arguments: canonical_invalid: ...` (the code, then the cause). */
function resolveFailure(step: string, e: unknown): string {
  const code =
    e instanceof KeelError
      ? e.code
      : typeof (e as { code?: unknown })?.code === 'string'
        ? (e as { code: string }).code
        : ErrorCode.internal;
  const message = e instanceof Error ? e.message : String(e);
  return `step ${step}: could not build its arguments: ${code}: ${excerpt(message, 500)}`;
}
