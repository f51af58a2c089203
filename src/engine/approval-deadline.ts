/**
 * Deadlines on approvals, walked: a step whose spec declares `approval: { timeout, then, remind }`
 * (core/spec/approval-deadline.ts) and whose proposal waits for a person gets a deadline in its
 * `approval.requested` (the entry's own time plus the timeout). While nobody has decided, each walk
 * of the run reads the clock (the time its writer stamps the next entry with) and does what is
 * due: records a reminder (`approval.reminded`), hands the approval to another approver group
 * (`approval.escalated`, with its new deadline), or lets it expire (`approval.expired`, then the
 * step refused `approval_timeout`). Nothing due yet: the walk stops without writing, and the append
 * that opened the approval (or the last reminder) sets the run's wake time with its lease change
 * (`LeaseChange` `wait`): the run holds nothing, and a worker claims it when the next thing is due.
 *
 * Exactly once: a person's decision and the deadline race for the run's head; whichever append
 * lands first stands, the other is a head conflict (the person is told whose decision stands).
 * A replay writes what the record holds at each seq (`recordedApprovalDeadline`), never the clock's
 * guess. A simulated run whose test says nobody answers (`approvals: none`) never sleeps: its
 * virtual clock jumps to what is due. Nothing here calls a tool.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { PayloadOf } from '../core/ledger/index.ts';
import { type ApprovalDeadlineSpec, durationMs, nextApprovalDue } from '../core/spec/index.ts';
import { refuseStep } from './refuse-step.ts';
import type { Flow, Walk } from './walk-context.ts';

/**
 * A wake time no clock reaches: set on a run that opens an approval with no deadline, so a wake
 * time left from an earlier timer of the same run never makes its approval claimable.
 */
export const NEVER_MS = 8_640_000_000_000_000;

/** The approval deadline the spec declares for a tool step, if any. */
export function approvalSpecOf(walk: Walk, step: string): ApprovalDeadlineSpec | undefined {
  for (const n of walk.plan.nodes) if (n.kind === 'tool' && n.id === step) return n.step.approval;
  return undefined;
}

/** The `deadline` of a request made at `at` for `step`: at plus the declared timeout, or none. */
export function deadlineFor(walk: Walk, step: string, at: string): string | undefined {
  const spec = approvalSpecOf(walk, step);
  return spec ? new Date(Date.parse(at) + durationMs(spec.timeout)).toISOString() : undefined;
}

/** Whether the spec declares a wait anywhere (its runs may carry a wake time from a timer). */
function hasWaits(walk: Walk): boolean {
  return walk.plan.nodes.some((n) => n.kind === 'wait');
}

/**
 * For a pending approval nobody has decided yet: what its deadline does now — `next` (a reminder,
 * an escalation recorded; the walk comes back here), `stop` (expired and refused, or nothing due:
 * the run waits for its wake time) — or undefined: no deadline applies here (the caller goes on
 * as before: a recorded decision when replaying, else the run waits for a person).
 */
export function approvalDeadlineAt(walk: Walk): Flow | undefined {
  const { w, fx } = walk;
  const s = w.state;
  const a = s.approval!;
  const clock = a.clock;
  const spec = approvalSpecOf(walk, a.request.step);
  if (clock?.deadlineMs === undefined || !spec) {
    // No deadline (none declared, or escalated with none): a run whose row may hold a wake time
    // (an earlier timer, the passed deadline) clears it with this append.
    if (!walk.simulated && !fx.recordedApprovalDeadline && (clock?.escalated || hasWaits(walk)))
      w.leaseWith({ op: 'wait', wakeAt: NEVER_MS });
    return undefined;
  }
  const due = nextApprovalDue(spec, clock);
  if (!due) return undefined;
  const p = { proposalId: a.request.proposalId as Digest, step: a.request.step };
  if (fx.recordedApprovalDeadline) {
    // Replaying: the record says whether a deadline acted here (else a decision, or nothing, did).
    if (!fx.recordedApprovalDeadline(s)) return undefined;
  } else if (walk.simulated && s.test?.approvals !== 'none') return undefined;
  // Nobody answers a test that says so: its virtual clock jumps to what is due (replayed alike).
  if (walk.simulated) w.advanceTo(new Date(due.atMs).toISOString());
  const at = w.nextAt();
  if (Date.parse(at) < due.atMs) {
    // Not due: the run waits for a person, holding nothing; the store wakes it when this is due.
    if (!walk.simulated) w.leaseWith({ op: 'wait', wakeAt: due.atMs });
    return 'stop';
  }
  const deadline = new Date(clock.deadlineMs).toISOString();
  if (due.what === 'remind') {
    w.add('approval.reminded', { ...p, ...(clock.group ? { group: clock.group } : {}), at });
    return 'next';
  }
  if (due.what === 'escalate') {
    const next = due.timeout ? new Date(Date.parse(at) + durationMs(due.timeout)).toISOString() : undefined;
    w.add('approval.escalated', { ...p, to: due.to, deadline, at, ...(next ? { next } : {}) });
    return 'next';
  }
  const expired: PayloadOf<'approval.expired'> = { ...p, deadline, at, reason: 'approval_timeout' };
  w.add('approval.expired', expired);
  w.approvalClosed(p.proposalId);
  const by = clock.group ? `${clock.group} ` : '';
  return refuseStep(w, a.request.step, a.request.tool, p.proposalId, {
    outcome: 'refuse',
    check: 'approval',
    code: 'approval_timeout',
    message: `nobody ${by ? `of ${by}` : ''}decided on the approval by its deadline ${deadline}`,
  });
}
