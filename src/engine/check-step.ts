/**
 * The check phase of a tool step: the proposal judged before anything runs (core checkProposal:
 * schema, writ, policy, step limit, spend cap, destructive guardrail), at the time the decision
 * entry will carry, so a replay judges alike. What holds or ends the step is recorded here: a
 * refusal (the run ends refused), or a request for a person's approval (with the deadline its step
 * declares, approval-deadline.ts) — which a simulated run asks nobody for, assuming the decision
 * its root says (a test that says nobody answers waits, in virtual time). Never executes anything.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { Policy } from '../core/policy/index.ts';
import { checkProposal, type Decision, type PolicyCheck, type WritCheckContext } from '../core/run/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { deadlineFor } from './approval-deadline.ts';
import { type RunGovernance, revokedAsOf, writUsage } from './governance.ts';
import { refuseStep } from './refuse-step.ts';
import type { RunWriter } from './run-writer.ts';
import type { Flow, Walk } from './walk-context.ts';

export type Allow = Extract<Decision, { outcome: 'allow' }>;

/** The allow decision to record, or where the walk goes instead (refused, or waiting for a person). */
export function checkStep(
  walk: Walk,
  tool: ToolDefinition,
  step: string,
  args: Record<string, unknown>,
  proposalId: Digest,
  approved: boolean,
): Allow | Flow {
  const { w, o } = walk;
  const s = w.state;
  const g = o.governance;
  const decision = checkProposal({
    tool,
    args,
    stepsTaken: s.stepsTaken,
    maxSteps: walk.maxSteps,
    // The model's answers count against the cap too, rounded up to the next cent.
    // So do the calls in flight (parallel branches): decided one after another, two never both fit.
    spentCents: s.spentCents + s.inFlightCents + Math.ceil(s.modelMicroUsd / 10_000),
    capCents: walk.capCents,
    versionStatus: walk.judgedAs,
    approved,
    writ: g?.writ ? writCheck(w, g.writ) : undefined,
    policy: g?.policy ? policyCheck(w, g.policy) : undefined,
  });
  if (decision.outcome === 'refuse') return refuseStep(w, step, tool.name, proposalId, decision);
  if (decision.outcome === 'allow') return decision;
  const request = {
    step,
    tool: tool.name,
    proposalId,
    args,
    costCents: decision.costCents,
    reason: decision.reason,
    channel: decision.channel,
    ...(decision.policy ? { policy: decision.policy } : {}),
  };
  const unanswered = walk.simulated && s.mode === 'test' && s.test?.approvals === 'none';
  if (walk.simulated && !unanswered) {
    // would_wait_approval: nobody is asked. A shadow goes on as approved, a test as it says.
    const denied = s.mode === 'test' && s.test?.approvals === 'deny';
    w.add('approval.simulated', {
      ...request,
      assumed: denied ? 'denied' : 'approved',
      by: s.mode === 'test' ? `test ${s.test?.name ?? ''}`.trim() : 'shadow',
    });
    return 'next';
  }
  // A deadline declared on the step runs from this entry's own time (approval-deadline.ts).
  const deadline = deadlineFor(walk, step, w.nextAt());
  const e = w.add('approval.requested', deadline ? { ...request, deadline } : request);
  // A test nobody answers waits like a live run, in its virtual time, listed in nobody's inbox.
  if (!unanswered) w.approvalOpened({ tenant: s.tenant, runId: s.runId, ...request, requestedAt: e.at });
  return 'next';
}

/**
 * The writ part of a proposal's checks, judged at the time the decision entry will carry (read
 * through the run's entry clock, recorded, so replay judges alike); usage from the fold.
 */
function writCheck(w: RunWriter, writ: NonNullable<RunGovernance['writ']>): WritCheckContext {
  const s = w.state;
  const now = w.nextAt();
  return {
    chain: writ.chain,
    trusted: writ.trusted,
    revoked: revokedAsOf(writ.revoked, now),
    now,
    usage: writUsage(s),
    tenant: s.tenant,
  };
}

/** The policy part of a proposal's checks, at the same time as the writ part (see writCheck). */
function policyCheck(w: RunWriter, policy: Policy): PolicyCheck {
  const s = w.state;
  return {
    policy,
    tenant: s.tenant,
    workflowId: s.workflowId,
    clock: w.nextAt(),
    pinned: s.policyHash === policy.hash,
  };
}
