/**
 * The fold of an approval deadline's entries (core/spec/approval-deadline.ts) into the run state:
 * a reminder moves the time reminders count from, an escalation names the approver group and
 * the new deadline (none: the approval waits for that group with no deadline), an expiry only
 * moves a simulated run's virtual clock (the step.refused that follows closes the approval).
 * Pure; an entry for another proposal than the pending one changes nothing.
 */
import type { Entry, PayloadOf } from '../ledger/index.ts';
import type { ApprovalClock } from '../spec/index.ts';

/** The part of the run state (run-state.ts) this fold reads and moves. */
interface DeadlineState {
  readonly mode?: string;
  virtualNow?: number;
  approval?: {
    readonly request: { readonly proposalId: string };
    clock?: ApprovalClock & { readonly group?: string };
  };
}

export function foldApprovalDeadline(s: DeadlineState, e: Entry): void {
  const p = e.payload as PayloadOf<'approval.reminded' | 'approval.escalated' | 'approval.expired'>;
  const a = s.approval;
  const at = Date.parse(p.at);
  if (s.mode) s.virtualNow = Math.max(s.virtualNow ?? 0, at);
  if (!a || a.request.proposalId !== p.proposalId) return;
  if (e.kind === 'approval.reminded' && a.clock) a.clock = { ...a.clock, sinceMs: at };
  if (e.kind === 'approval.escalated') {
    const q = e.payload as PayloadOf<'approval.escalated'>;
    a.clock = {
      sinceMs: at,
      escalated: true,
      group: q.to,
      ...(q.next !== undefined ? { deadlineMs: Date.parse(q.next) } : {}),
    };
  }
}
