/**
 * A person's reconciliation of a suspended step, as the entry the engine records: checked against
 * the run's folded state (only a run suspended as outcome_unknown can be reconciled, and only
 * once), never written here. Bad input is a usage error that names the field.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { Entry, PayloadOf } from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';

export interface ReconcileRequest {
  /** Whether the suspended call's effect happened (checked by a person on the tool's side). */
  readonly happened: boolean;
  /** When it happened: what the call returned, recorded as the step's output (default null). */
  readonly output?: unknown;
  readonly by: string;
  readonly note?: string;
}

export function operatorReconciliation(
  state: RunState,
  entries: readonly Entry[],
  r: ReconcileRequest,
): PayloadOf<'step.reconciled'> {
  const a = state.suspended ? state.inFlight : undefined;
  if (!a) {
    const prior = entries.filter((e) => e.kind === 'step.reconciled').at(-1);
    if (prior && state.status !== 'outcome_unknown') {
      const p = prior.payload as PayloadOf<'step.reconciled'>;
      throw new KeelError(
        ErrorCode.alreadyResolved,
        `step ${p.step} of run ${state.runId} was already reconciled by ${p.by}: it ${p.happened ? 'happened' : 'did not happen'}`,
        { runId: state.runId, step: p.step, happened: p.happened, by: p.by },
      );
    }
    throw new KeelError(
      ErrorCode.runState,
      `run ${state.runId} is ${state.status}; only a run suspended as outcome_unknown can be reconciled`,
      { runId: state.runId, status: state.status },
    );
  }
  if (typeof r.happened !== 'boolean') {
    throw new KeelError(ErrorCode.usage, 'happened: expected true or false', { field: 'happened' });
  }
  if (!r.happened && r.output !== undefined) {
    throw new KeelError(ErrorCode.usage, 'output: only a call that happened has an output', {
      field: 'output',
    });
  }
  if (typeof r.by !== 'string' || r.by.length === 0 || r.by.length > 200) {
    throw new KeelError(ErrorCode.usage, 'by: expected a name of 1-200 characters', { field: 'by' });
  }
  return {
    step: a.step,
    tool: a.tool,
    proposalId: a.proposalId,
    happened: r.happened,
    via: 'operator',
    by: r.by,
    ...(r.happened ? { output: r.output ?? null } : {}),
    ...(r.note ? { note: r.note } : {}),
  };
}
