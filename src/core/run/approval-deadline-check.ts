/**
 * Verify's check of approval deadlines (core/spec/approval-deadline.ts): fed the run's entries in
 * order, it checks that what each deadline did follows from the recorded times — a request's
 * `deadline` is its own time plus the step's declared timeout; a reminder comes no earlier than
 * `remind` after the request (or the last reminder, or the escalation) and before the deadline; an
 * escalation or expiry comes at or after the deadline it names, which is the deadline standing;
 * an escalation's new deadline is its own time plus the declared timeout, to the declared group;
 * every entry's `at` is its own time. A failure is `approval_deadline_mismatch` naming the seq.
 * Pure; never executes anything.
 */
import type { EntryKind, PayloadOf, VerifyFailure } from '../ledger/index.ts';
import {
  type ApprovalDeadlineSpec,
  allSteps,
  durationMs,
  isToolStep,
  parseIterationStepId,
  type WorkflowSpec,
} from '../spec/index.ts';

interface Pending {
  readonly step: string;
  readonly proposalId: string;
  readonly requestedAt: number;
  deadline?: string;
  sinceMs: number;
  escalated: boolean;
  to?: string;
}

type Seen =
  | { seq: number; kind: 'approval.requested'; at: number; p: PayloadOf<'approval.requested'> }
  | { seq: number; kind: 'approval.escalated'; at: number; p: PayloadOf<'approval.escalated'> }
  | { seq: number; kind: 'approval.reminded'; at: number; since: number; deadline: string; step: string };

export class ApprovalDeadlineCheck {
  private pending: Pending | undefined;
  private readonly seen: Seen[] = [];
  private failure: VerifyFailure | undefined;

  apply(kind: EntryKind, payload: unknown, seq: number, at: string): void {
    if (this.failure) return;
    const fail = (why: string) => {
      this.failure = { code: 'approval_deadline_mismatch', seq, message: `${kind} at seq ${seq}: ${why}` };
    };
    const t = Date.parse(at);
    if (kind === 'approval.requested') {
      const p = payload as PayloadOf<'approval.requested'>;
      this.pending = {
        step: p.step,
        proposalId: p.proposalId,
        requestedAt: t,
        sinceMs: t,
        escalated: false,
        ...(p.deadline !== undefined ? { deadline: p.deadline } : {}),
      };
      if (p.deadline !== undefined) this.seen.push({ seq, kind, at: t, p });
      return;
    }
    if (kind === 'approval.resolved' || kind === 'step.refused' || kind === 'run.finished') {
      if (
        kind !== 'step.refused' ||
        this.pending?.proposalId === (payload as { proposalId?: string }).proposalId
      )
        this.pending = undefined;
      return;
    }
    if (kind !== 'approval.reminded' && kind !== 'approval.escalated' && kind !== 'approval.expired') return;
    const p = payload as PayloadOf<'approval.reminded' | 'approval.escalated' | 'approval.expired'>;
    const a = this.pending;
    if (!a || a.proposalId !== p.proposalId || a.deadline === undefined) {
      fail('no pending approval of that proposal with a deadline');
      return;
    }
    if (p.at !== at) {
      fail(`its at ${p.at} is not the entry's own time ${at}`);
      return;
    }
    if (kind === 'approval.reminded') {
      if (t >= Date.parse(a.deadline)) {
        fail(`a reminder at or after the deadline ${a.deadline}`);
        return;
      }
      this.seen.push({ seq, kind, at: t, since: a.sinceMs, deadline: a.deadline, step: a.step });
      a.sinceMs = t;
      return;
    }
    const q = p as PayloadOf<'approval.escalated' | 'approval.expired'>;
    const why =
      q.deadline !== a.deadline
        ? `it names the deadline ${q.deadline}, but ${a.deadline} stood`
        : t < Date.parse(a.deadline)
          ? `it came at ${at}, before the deadline ${a.deadline}`
          : kind === 'approval.escalated' && a.escalated
            ? 'the approval was escalated already'
            : undefined;
    if (why) {
      fail(why);
      return;
    }
    if (kind === 'approval.escalated') {
      const e = payload as PayloadOf<'approval.escalated'>;
      this.seen.push({ seq, kind, at: t, p: e });
      a.escalated = true;
      a.sinceMs = t;
      a.to = e.to;
      if (e.next !== undefined) a.deadline = e.next;
      else delete a.deadline;
    }
  }

  /** The first deadline that does not follow (times first, then each against `spec`'s declaration). */
  result(spec: WorkflowSpec | undefined): VerifyFailure | undefined {
    if (this.failure || !spec) return this.failure;
    const declared = new Map<string, ApprovalDeadlineSpec>();
    for (const s of allSteps(spec)) if (isToolStep(s) && s.approval) declared.set(s.name, s.approval);
    for (const d of this.seen) {
      const why = problemOf(d, declared);
      if (why)
        return {
          code: 'approval_deadline_mismatch',
          seq: d.seq,
          message: `${d.kind} at seq ${d.seq}: ${why}`,
        };
    }
    return undefined;
  }
}

function problemOf(d: Seen, declared: Map<string, ApprovalDeadlineSpec>): string | undefined {
  const step = d.kind === 'approval.reminded' ? d.step : d.p.step;
  // A loop's step runs as `<loop>[<i>].<step>`, under the deadline its body step declares.
  const spec = declared.get(step) ?? declared.get(parseIterationStepId(step)?.step ?? '');
  if (!spec) return `the pinned spec declares no approval deadline on step ${step}`;
  if (d.kind === 'approval.requested') {
    const want = new Date(d.at + durationMs(spec.timeout)).toISOString();
    return d.p.deadline === want
      ? undefined
      : `deadline ${d.p.deadline}, but the request time plus ${spec.timeout} is ${want}`;
  }
  if (d.kind === 'approval.reminded') {
    if (!spec.remind) return `step ${step} declares no reminders`;
    return d.at >= d.since + durationMs(spec.remind)
      ? undefined
      : `a reminder sooner than every ${spec.remind}`;
  }
  const then = spec.then;
  if (then === 'deny') return `step ${step} says deny, not escalate`;
  if (d.p.to !== then.escalate) return `escalated to ${d.p.to}, but the spec names ${then.escalate}`;
  const want = then.timeout ? new Date(d.at + durationMs(then.timeout)).toISOString() : undefined;
  return d.p.next === want
    ? undefined
    : `new deadline ${d.p.next ?? 'none'}, but the spec gives ${want ?? 'none'}`;
}
