/**
 * `keel.approvals`: the pending approvals of a tenant's runs, as each run's ledger records them
 * (never as the approvals table, a projection, says), and the decisions on them — approved or
 * denied once, by an authenticated person, recorded in the run's ledger before the run walks on.
 */
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError } from '../core/errors.ts';
import type { PolicyEntry } from '../core/ledger/index.ts';
import { type ApprovalCause, approvalCause } from '../core/run/index.ts';
import { type Engine, openRequest, type RunSummary, type WalkMode } from '../engine/index.ts';
import type { PendingApproval, RunIndex } from '../ports/index.ts';
import type { LiveWork, RunEnded } from './lifecycle/live-activity.ts';

/**
 * A pending approval as an approver is shown it, from the run's ledger: the request
 * (`approval.requested`: step, tool, args, costCents, reason, channel, the policy's record with its
 * trace when a policy was checked), the run's workflow and pinned version, and why it waits
 * (`cause`). A run that fails verification is listed with `invalid` and none of these but its id.
 */
export interface PendingApprovalItem extends PendingApproval {
  readonly workflowId?: string;
  readonly version?: number;
  readonly costCents?: number;
  readonly policy?: PolicyEntry;
  /** `policy`: a rule of `policy` (its `rule`, its `trace`); `destructive`: the guardrail; `gate`: the tool always asks. */
  readonly cause?: ApprovalCause;
  /** When the step's approval deadline acts (docs/governance.md), if one stands: an RFC 3339 instant. */
  readonly deadline?: string;
  /** The approver group the approval was escalated to (`approval.escalated`), so they see it is theirs. */
  readonly escalatedTo?: string;
}

export interface ApprovalsHandle {
  /** Pending approvals from the runs' ledgers, oldest request first (of one run with `runId`). */
  list(tenant: string, runId?: string): Promise<PendingApprovalItem[]>;
  approve(
    tenant: string,
    runId: string,
    by: string,
    note?: string,
    o?: { walk?: WalkMode },
  ): Promise<RunSummary>;
  deny(
    tenant: string,
    runId: string,
    by: string,
    note?: string,
    o?: { walk?: WalkMode },
  ): Promise<RunSummary>;
}

export interface ApprovalsDeps {
  readonly runs: RunIndex;
  readonly engine: Engine;
  readonly live: LiveWork;
  readonly ended: RunEnded;
}

export function approvalsHandle(d: ApprovalsDeps): ApprovalsHandle {
  const { engine, live, ended } = d;
  /**
   * What an approver is shown: each pending approval as the run's ledger records it, never as the
   * approvals table (a projection) says. Runs with a pending row or a waiting status are read and
   * checked; one that does not verify is listed with `invalid` and nothing else of it, and a row for a
   * run whose ledger waits for nothing is not listed (`keel verify` reports it).
   */
  async function pendingApprovals(tenant: string, runId?: string): Promise<PendingApprovalItem[]> {
    const rows = await d.runs.listPendingApprovals(tenant, runId);
    const ids = new Set(rows.map((r) => r.runId));
    if (runId === undefined) {
      for (let cursor: string | undefined; ; ) {
        const page = await d.runs.listRuns(tenant, {
          status: 'waiting_approval',
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        for (const r of page.runs) ids.add(r.runId);
        if (!page.next) break;
        cursor = page.next;
      }
    } else if ((await d.runs.getRun(tenant, runId))?.status === 'waiting_approval') ids.add(runId);
    const out: PendingApprovalItem[] = [];
    for (const id of ids) {
      try {
        const { state, entries } = await engine.load(tenant, id);
        const request = openRequest(state);
        if (!request) continue;
        const at = entries.findLast((e) => e.kind === 'approval.requested')?.at ?? '';
        const clock = state.approval?.clock;
        out.push({
          tenant,
          runId: id,
          workflowId: state.workflowId,
          version: state.version,
          ...request,
          cause: approvalCause(request),
          requestedAt: at,
          ...(clock?.deadlineMs !== undefined ? { deadline: new Date(clock.deadlineMs).toISOString() } : {}),
          ...(clock?.group ? { escalatedTo: clock.group } : {}),
        });
      } catch (e) {
        if (!(isKeelError(e) && e.code === ErrorCode.ledgerInvalid)) throw e;
        // Nothing of a run that fails verification is shown as if it were true: neither its row
        // (a projection anyone with the database can edit) nor its ledger. Only when it was asked.
        const d = e.details as { code: string; seq: number };
        const row = rows.find((r) => r.runId === id);
        out.push({
          tenant,
          runId: id,
          proposalId: '' as Digest,
          step: '',
          tool: '',
          args: {},
          reason: '',
          channel: '',
          requestedAt: row?.requestedAt ?? '',
          invalid: { code: d.code, seq: d.seq, message: e.message },
        });
      }
    }
    return out.sort((a, b) => (a.requestedAt < b.requestedAt ? -1 : a.requestedAt > b.requestedAt ? 1 : 0));
  }

  return {
    list: pendingApprovals,
    approve: (tenant: string, runId: string, by: string, note?: string, o: { walk?: WalkMode } = {}) =>
      live(() =>
        engine.resolveApproval(tenant, runId, { decision: 'approved', by, ...(note ? { note } : {}), ...o }),
      ).then((r) => ended(tenant, r)),
    deny: (tenant: string, runId: string, by: string, note?: string, o: { walk?: WalkMode } = {}) =>
      live(() =>
        engine.resolveApproval(tenant, runId, { decision: 'denied', by, ...(note ? { note } : {}), ...o }),
      ).then((r) => ended(tenant, r)),
  };
}
