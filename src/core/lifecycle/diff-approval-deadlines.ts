/**
 * What changed in the steps' approval deadlines between two versions, for `keel diff`: a deadline
 * added or gone, another timeout, another consequence (deny or escalate, another group, another
 * second timeout), reminders added, gone or respaced. Each is a behaviour change (a run waiting for
 * a person is denied, escalated or reminded at another time), except a duration written
 * differently for the same time (`24h` and `1d`). Pure: two specs in, changes out.
 */
import {
  type ApprovalDeadlineSpec,
  isToolStep,
  parseDuration,
  type WorkflowSpec,
  walkSteps,
} from '../spec/index.ts';

/** One change, as diff-flow.ts reports it (structurally its FlowChange). */
export interface ApprovalDeadlineChange {
  readonly text: string;
  readonly behaviour: boolean;
}

function deadlines(
  spec: WorkflowSpec,
  rename: (n: string) => string = (n) => n,
): Map<string, ApprovalDeadlineSpec> {
  const out = new Map<string, ApprovalDeadlineSpec>();
  walkSteps(spec, (s) => {
    if (isToolStep(s) && s.approval) out.set(rename(s.name), s.approval);
  });
  return out;
}

const ms = (d: string | undefined) => {
  if (d === undefined) return undefined;
  const p = parseDuration(d);
  return 'ms' in p ? p.ms : Number.NaN;
};

/** The deadline's meaning, durations in ms: equal keys, equal behaviour. */
const meaning = (a: ApprovalDeadlineSpec) =>
  JSON.stringify([
    ms(a.timeout),
    a.then === 'deny' ? 'deny' : [a.then.escalate, ms(a.then.timeout) ?? null],
    ms(a.remind) ?? null,
  ]);

/** "24h, then deny, reminding every 4h" */
const words = (a: ApprovalDeadlineSpec) =>
  `${a.timeout}, then ${a.then === 'deny' ? 'deny' : `escalate to ${a.then.escalate}${a.then.timeout ? ` (denied after ${a.then.timeout} more)` : ''}`}${a.remind ? `, reminding every ${a.remind}` : ''}`;

/** The approval deadline changes from `a` to `b`; `newName` maps a step renamed in `b` to its new name. */
export function diffApprovalDeadlines(
  a: WorkflowSpec,
  b: WorkflowSpec,
  newName: (n: string) => string,
): ApprovalDeadlineChange[] {
  const out: ApprovalDeadlineChange[] = [];
  const da = deadlines(a, newName);
  const db = deadlines(b);
  for (const [name, now] of db) {
    const was = da.get(name);
    if (!was)
      out.push({ text: `Step ${name} now has an approval deadline: ${words(now)}.`, behaviour: true });
    else if (meaning(was) !== meaning(now))
      out.push({
        text: `Step ${name}'s approval deadline is now ${words(now)} (was ${words(was)}).`,
        behaviour: true,
      });
    else if (JSON.stringify(was) !== JSON.stringify(now))
      out.push({
        text: `Step ${name}'s approval deadline is written differently — ${words(now)}, was ${words(was)} — the same times: not a behaviour change.`,
        behaviour: false,
      });
  }
  for (const [name, was] of da)
    if (!db.has(name))
      out.push({
        text: `Step ${name}'s approval deadline (${words(was)}) is gone: its approval waits for a person with no deadline.`,
        behaviour: true,
      });
  return out;
}
