/**
 * A step allowed whose outcome is not recorded (the effect may have happened before a crash, or
 * a pause cut it). An idempotent tool is called again with the same idempotency key; any other is
 * never called again: its reconcile check (or, replaying, the recorded reconciliation) may settle
 * it, and otherwise the run is suspended (`run.suspended`, outcome_unknown) for a person.
 */
import type { PayloadOf } from '../core/ledger/index.ts';
import { invokeStep, repeatable } from './record-outcome.ts';
import type { Walk } from './walk-context.ts';

/** Settles the in-flight step; false when the run must stop here. */
export async function settleInFlight(walk: Walk, a: PayloadOf<'step.allowed'>): Promise<boolean> {
  const { w, fx } = walk;
  const s = w.state;
  const tool = walk.tools.get(a.tool);
  if (repeatable(tool, a) && !s.suspended && (await invokeStep(walk, a))) return true;
  let found = await fx.reconcile?.(tool, a, s);
  if (!(found && 'decision' in found) && !s.suspended) {
    const why = !tool
      ? `${a.tool} is not registered here`
      : found
        ? found.problem
        : `${a.tool} is not idempotent and has no reconcile check`;
    const recorded = fx.recordedSuspension?.(s);
    w.add('run.suspended', {
      reason: 'outcome_unknown',
      step: a.step,
      tool: a.tool,
      proposalId: a.proposalId,
      idempotencyKey: a.idempotencyKey,
      message:
        recorded?.proposalId === a.proposalId
          ? recorded.message
          : `${a.tool} (step ${a.step}, attempt ${a.attempt}) started but its outcome was never recorded; ${why}, so calling it again could repeat the effect`,
    });
    // Live, a suspended run waits for a person; replaying, this serves the decision recorded later.
    found = await fx.reconcile?.(tool, a, s);
  }
  if (found && 'decision' in found) {
    w.add('step.reconciled', found.decision);
    return true;
  }
  return false;
}
