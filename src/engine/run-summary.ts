/**
 * What the engine hands back about a run: its identity, where it is and (once finished) why — read
 * from the run's row or folded from its ledger. Never reads or writes a store itself.
 */
import type { RunStatus } from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';
import type { RunRecord } from '../ports/index.ts';

export interface RunSummary {
  readonly runId: string;
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly status: RunStatus;
  readonly reason?: string;
  /**
   * Why, in a word, when it says more than the status: `model_unavailable` for a run held (paused)
   * because its model provider could not answer; `resume` asks again.
   */
  readonly code?: string;
}

export function summaryOf(r: RunRecord): RunSummary {
  return { runId: r.runId, tenant: r.tenant, workflowId: r.workflowId, version: r.version, status: r.status };
}

export function stateSummary(s: RunState): RunSummary {
  return {
    runId: s.runId,
    tenant: s.tenant,
    workflowId: s.workflowId,
    version: s.version,
    status: s.status,
    ...(s.finished?.reason ? { reason: s.finished.reason } : {}),
    ...(s.outage && !s.finished ? { reason: s.outage.message, code: 'model_unavailable' } : {}),
  };
}
