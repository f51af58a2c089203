/**
 * The step boundary: where a walk checks, before each step, whether it goes on. A cancellation
 * (this walk's abort signal: a person cancelled the run in this process) finishes the run as
 * cancelled — a tool call it cuts is recorded as `step.failed` with code `cancelled` first
 * (record-outcome.ts) — and a replay is told of a recorded cancellation by its effects, at the
 * same seq. A caller asking the walk to stop (a worker shutting down or losing the lease) stops
 * it, committing what it wrote; replaying, the pauses and resumes recorded here are written
 * again; a paused run stops. Nothing here acts or draws.
 */
import { type CancelRequest, cancelReason, type RunState } from '../core/run/index.ts';
import type { Effects } from './effects.ts';
import type { RunWriter } from './run-writer.ts';
import type { Walk, WalkOptions } from './walk-context.ts';

/** Whether the walk stops at this boundary (having written what stopping here records). */
export function stopsAtBoundary(walk: Walk): boolean {
  const { w, fx, o } = walk;
  const s = w.state;
  if (finishIfCancelled(w, fx, o)) return true;
  if (o.shouldStop?.()) return true;
  // A worker firing due waits in a batch: the fire is recorded, the rest is walked later.
  if (o.yieldAfterWait && w.waitEnded) return true;
  // Replaying: pauses and resumes are written again where they were recorded.
  for (let h = fx.hold?.(s); h; h = fx.hold?.(s)) {
    if (h.kind === 'run.paused') w.add('run.paused', h.payload);
    else w.add('run.resumed', h.payload);
  }
  return s.status === 'paused';
}

/** The run's cancellation, if one applies now: this walk's aborted signal, or (replaying) the record's. */
function cancellation(s: RunState, fx: Effects, o: WalkOptions): { readonly reason?: string } | undefined {
  if (o.signal?.aborted) return { reason: reasonOf(o.signal.reason) };
  return fx.cancellation?.(s);
}

/** The reason a cancellation gives, from the abort signal's reason (a CancelRequest). */
export function reasonOf(r: unknown): string {
  const c = r as Partial<CancelRequest> | undefined;
  return typeof c?.by === 'string' ? cancelReason(c as CancelRequest) : 'cancelled';
}

/** Finishes the run as cancelled when a cancellation applies; true when it did. */
export function finishIfCancelled(w: RunWriter, fx: Effects, o: WalkOptions): boolean {
  const c = cancellation(w.state, fx, o);
  if (!c) return false;
  const s = w.state;
  if (s.approval && !s.approval.decision) w.approvalClosed(s.approval.request.proposalId);
  w.add('run.finished', {
    status: 'cancelled',
    outputs: w.state.outputs,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
  });
  return true;
}
