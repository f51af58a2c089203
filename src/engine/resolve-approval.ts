/**
 * A person's decision on a run's pending approval, recorded at the run's head exactly once
 * (`approval.resolved`, closing the approval's row in the same append), then the run goes on:
 * approved, the proposal is acted on; denied, the step is refused — inline, or left to a worker.
 * A second approver is told whose decision stands (already_resolved), never applied on top.
 *
 * A run this process is walking may have calls of parallel branches still out while it waits
 * (the approval was requested in the round that allowed them): the decision waits for that walk
 * to record their outcomes and stop, and is then read and written at the run's head. So a denial
 * ends the run only once every call it made is recorded, and no call in flight is made twice.
 */
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import type { PayloadOf } from '../core/ledger/index.ts';
import type { EngineContext, WalkMode } from './engine-context.ts';
import { HEAD_RETRIES, headMoved } from './head-moved.ts';
import { loadRun } from './load-run.ts';
import { type RunSummary, stateSummary } from './run-summary.ts';
import { RunWriter } from './run-writer.ts';
import { proceed } from './walk-inline.ts';

export type ApprovalDecision = 'approved' | 'denied';

/** Resolves the run's pending approval exactly once, then continues (or stops) the run. */
export async function resolveApproval(
  ctx: EngineContext,
  tenant: string,
  runId: string,
  r: { decision: ApprovalDecision; by: string; note?: string; walk?: WalkMode },
  retries = HEAD_RETRIES,
): Promise<RunSummary> {
  // A walk here still settling calls in flight: it stops once they are recorded (waiting for this).
  await Promise.all(ctx.walks.of(tenant, runId).map((w) => w.stopped));
  const { state, version, entries } = await loadRun(ctx, tenant, runId);
  const pending = state.approval && !state.approval.decision ? state.approval.request : undefined;
  if (!pending) {
    const prior = entries.filter((e) => e.kind === 'approval.resolved').at(-1);
    if (prior) {
      const p = prior.payload as PayloadOf<'approval.resolved'>;
      // Who decided, what and when, so an approver who came second is told whose decision stands.
      throw new KeelError(
        ErrorCode.alreadyResolved,
        `the approval of run ${runId} was already ${p.decision} by ${p.by}`,
        {
          runId,
          proposalId: p.proposalId,
          decision: p.decision,
          by: p.by,
          resolvedBy: p.by,
          resolvedAt: prior.at,
          ...(p.note ? { note: p.note } : {}),
        },
      );
    }
    throw new KeelError(
      ErrorCode.runState,
      `run ${runId} is ${state.status}; it is not waiting for an approval`,
      {
        runId,
        status: state.status,
      },
    );
  }
  const writer = new RunWriter(ctx.store.ledger, state, state.head, ctx.live.at);
  writer.add('approval.resolved', {
    proposalId: pending.proposalId,
    decision: r.decision,
    by: r.by,
    ...(r.note ? { note: r.note } : {}),
  });
  writer.approvalClosed(pending.proposalId);
  try {
    await proceed(ctx, writer, version, r.walk);
  } catch (e) {
    // Another approver got there first: report theirs, never apply ours on top.
    if (!(isKeelError(e) && e.code === ErrorCode.headConflict)) throw e;
    if (retries <= 0) throw headMoved(runId, `recording the ${r.decision} decision`, e);
    return resolveApproval(ctx, tenant, runId, r, retries - 1);
  }
  return stateSummary(state);
}
