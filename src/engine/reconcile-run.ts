/**
 * A person's reconciliation of a suspended run's in-flight step — it happened (with its output) or
 * it did not (the step is proposed again as a new attempt) — recorded at the run's head
 * (`step.reconciled`, checked by reconcile-step.ts), then the run goes on inline or is left to a
 * worker. Only a run suspended as outcome_unknown can be reconciled, once: a second person's
 * account is refused (already_resolved), never applied on top of the first.
 */
import { hashOf } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError } from '../core/errors.ts';
import type { EngineContext, WalkMode } from './engine-context.ts';
import { HEAD_RETRIES, headMoved } from './head-moved.ts';
import { loadRun } from './load-run.ts';
import { operatorReconciliation, type ReconcileRequest } from './reconcile-step.ts';
import { type RunSummary, stateSummary } from './run-summary.ts';
import { RunWriter } from './run-writer.ts';
import { proceed } from './walk-inline.ts';

export async function reconcileRun(
  ctx: EngineContext,
  tenant: string,
  runId: string,
  r: ReconcileRequest & { walk?: WalkMode },
  retries = HEAD_RETRIES,
): Promise<RunSummary> {
  const { state, version, entries } = await loadRun(ctx, tenant, runId);
  const decision = operatorReconciliation(state, entries, r);
  const writer = new RunWriter(ctx.store.ledger, state, state.head, ctx.live.at);
  writer.add('step.reconciled', decision);
  try {
    await proceed(ctx, writer, version, r.walk);
  } catch (e) {
    if (!(isKeelError(e) && e.code === ErrorCode.headConflict)) throw e;
    // Ours was recorded and another walker went on from there: report where the run is now.
    const now = await loadRun(ctx, tenant, runId);
    const ours = now.entries.some(
      (x) => x.kind === 'step.reconciled' && hashOf(x.payload) === hashOf(decision),
    );
    if (ours) return stateSummary(now.state);
    // Someone reconciled it first: report theirs (already_resolved), never apply ours on top.
    if (retries <= 0) throw headMoved(runId, 'reconciling it', e);
    return reconcileRun(ctx, tenant, runId, r, retries - 1);
  }
  return stateSummary(state);
}
