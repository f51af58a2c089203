/**
 * What a run decided, step by step, read from its ledger: for each step it reached, the tool, the
 * arguments proposed (and their canonical hash), whether it needed a person's approval, and how it
 * ended — allowed, refused (with the code) or still waiting. The shape two runs are compared in
 * (a live run and its shadow, a run and its re-planning by the replay gate), and the one test
 * expectations read. Pure: entries in, decisions out.
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { Entry, PayloadOf } from '../ledger/index.ts';

export interface StepDecision {
  readonly step: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>> | null;
  /** `hashOf(args)`; null when the step was refused before its arguments were built. */
  readonly argsHash: Digest | null;
  /** `allowed`: the call was allowed (whatever it then returned); `waiting`: a person is asked. */
  readonly outcome: 'allowed' | 'refused' | 'waiting';
  /** The refusal's code (`spend_cap_exceeded`, `policy_denied`, `approval_denied`, ...). */
  readonly code?: string;
  /** Whether the proposal needed a person's approval (asked, or in a simulated run assumed). */
  readonly approval: boolean;
  /** A person's decision on it, when one was recorded (a simulated run's assumed one is not). */
  readonly decidedBy?: { readonly decision: 'approved' | 'denied'; readonly by: string };
}

export interface RunDecisions {
  readonly steps: readonly StepDecision[];
  /** The run's status at its head: a terminal status, or where it waits. */
  readonly status: string;
  /** Set when the run finished: its code (`needs_simulation`) or the first words of its reason. */
  readonly finished?: { readonly status: string; readonly code?: string };
  /** Steps suppressed in a simulated run (nothing called). */
  readonly suppressed: readonly string[];
  /** The branch each choice (`choose:`) took, in order (`branch.chosen`); absent in runs with none. */
  readonly branches?: readonly { readonly step: string; readonly branch: number | 'else' }[];
}

/** Decisions of a ledger, in order; a step decided again (a new attempt) keeps its last decision. */
export function runDecisions(entries: readonly Entry[], fromSeq = 1): RunDecisions {
  const steps: StepDecision[] = [];
  const suppressed: string[] = [];
  const branches: { step: string; branch: number | 'else' }[] = [];
  let status = 'running';
  let finished: RunDecisions['finished'];
  /** The approval asked (or assumed) for a proposal, until its decision is recorded. */
  let asked: { proposalId: string; decidedBy?: StepDecision['decidedBy'] } | undefined;
  const put = (d: StepDecision) => {
    const last = steps[steps.length - 1];
    if (last?.step === d.step) steps[steps.length - 1] = d;
    else steps.push(d);
  };
  for (const e of entries) {
    if (e.seq < fromSeq) continue;
    switch (e.kind) {
      case 'approval.requested':
      case 'approval.simulated': {
        const p = e.payload as PayloadOf<'approval.requested'>;
        asked = { proposalId: p.proposalId };
        put({
          step: p.step,
          tool: p.tool,
          args: p.args,
          argsHash: hashOf(p.args),
          outcome: 'waiting',
          approval: true,
        });
        status = e.kind === 'approval.requested' ? 'waiting_approval' : status;
        break;
      }
      case 'approval.resolved': {
        const p = e.payload as PayloadOf<'approval.resolved'>;
        if (asked?.proposalId === p.proposalId) asked.decidedBy = { decision: p.decision, by: p.by };
        status = 'running';
        break;
      }
      case 'step.allowed': {
        const p = e.payload as PayloadOf<'step.allowed'>;
        const approval = asked?.proposalId === p.proposalId;
        put({
          step: p.step,
          tool: p.tool,
          args: p.args,
          argsHash: hashOf(p.args),
          outcome: 'allowed',
          approval,
          ...(approval && asked?.decidedBy ? { decidedBy: asked.decidedBy } : {}),
        });
        if (approval) asked = undefined;
        status = 'running';
        break;
      }
      case 'step.refused': {
        const p = e.payload as PayloadOf<'step.refused'>;
        const approval = p.proposalId !== null && asked?.proposalId === p.proposalId;
        const prior = steps[steps.length - 1];
        const args = approval && prior?.step === p.step ? prior.args : null;
        put({
          step: p.step,
          tool: p.tool,
          args,
          argsHash: args ? hashOf(args) : null,
          outcome: 'refused',
          code: p.code,
          approval,
          ...(approval && asked?.decidedBy ? { decidedBy: asked.decidedBy } : {}),
        });
        if (approval) asked = undefined;
        break;
      }
      case 'branch.chosen': {
        const p = e.payload as PayloadOf<'branch.chosen'>;
        branches.push({ step: p.step, branch: p.branch });
        break;
      }
      case 'step.suppressed':
        suppressed.push((e.payload as PayloadOf<'step.suppressed'>).step);
        break;
      case 'run.finished': {
        const p = e.payload as PayloadOf<'run.finished'>;
        status = p.status;
        finished = p.code ? { status: p.status, code: p.code } : { status: p.status };
        break;
      }
      case 'run.suspended':
        status =
          (e.payload as PayloadOf<'run.suspended'>).reason === 'model_unavailable'
            ? 'paused'
            : 'outcome_unknown';
        break;
      case 'run.paused':
        status = 'paused';
        break;
      case 'run.resumed':
      case 'step.reconciled':
        status = 'running';
        break;
      default:
        break;
    }
  }
  return {
    steps,
    status,
    ...(finished ? { finished } : {}),
    suppressed,
    ...(branches.length > 0 ? { branches } : {}),
  };
}

/** Leaf-level differences between two argument values: `[{field: 'amount_usd', a: 40, b: 45}]`. */
export function fieldDiff(
  a: unknown,
  b: unknown,
  path = '',
): { readonly field: string; readonly a: unknown; readonly b: unknown }[] {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => fieldDiff(a[k], b[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((x, i) => fieldDiff(x, b[i], `${path}[${i}]`));
  if (a === undefined && b === undefined) return [];
  return hashOf(a ?? null) === hashOf(b ?? null) && (a === undefined) === (b === undefined)
    ? []
    : [{ field: path || '(arguments)', a: a ?? null, b: b ?? null }];
}
