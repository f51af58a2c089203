/**
 * A tool step, today the one kind of plan node (walk.ts `NODE_KINDS`): resolve its arguments
 * (step-args.ts) -> check the proposal (check-step.ts) -> record the decision -> execute the tool ->
 * record its outcome (record-outcome.ts). A proposal a person approved comes back here at the
 * check (`approvalAt`), under the id it was approved under.
 *
 * It never calls a tool without an allow decision in the ledger: the allow is committed before the
 * call, unless the tool is idempotent and everything uncommitted is reproducible from the durable
 * head (see RunWriter). Under a writ the allow takes its share of the budget every run under the
 * writ shares (writ-budget.ts); a delegation's child writ is minted before its allow
 * (mint-delegation.ts), and that allow is always committed first.
 */
import type { PayloadOf } from '../core/ledger/index.ts';
import { type Decision, idempotencyKeyFor, proposalIdFor, type ToolNode } from '../core/run/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { approvalDeadlineAt } from './approval-deadline.ts';
import { checkStep } from './check-step.ts';
import { mintFor } from './delegate.ts';
import { DELEGATE_TOOL } from './mint-delegation.ts';
import { callSignal, recordOutcome, repeatable, toolOf } from './record-outcome.ts';
import { refuseStep } from './refuse-step.ts';
import { type StepArgs, stepArgs } from './step-args.ts';
import { unresolvedStep } from './unresolved-step.ts';
import type { Flow, Walk } from './walk-context.ts';
import { allowUnderWrit } from './writ-budget.ts';

/**
 * Where a run waiting for a person's decision goes: it stops (no decision yet: live, a person
 * decides; replaying, none recorded), records the decision the record serves and goes back to the
 * step boundary, stops refused (denied), or — undefined — acts on the approved proposal.
 */
export function approvalAt(walk: Walk): Flow | undefined {
  const { w, fx } = walk;
  const s = w.state;
  const { request, decision: decided } = s.approval!;
  if (!decided) {
    // A deadline declared on the step may act first: remind, escalate, or expire (approval-deadline.ts).
    const timed = approvalDeadlineAt(walk);
    if (timed) return timed;
  }
  const decision = decided ?? fx.approval?.(request, s);
  if (!decision) return 'stop';
  if (!decided) {
    w.add('approval.resolved', { ...decision, proposalId: request.proposalId });
    w.approvalClosed(request.proposalId);
    // Back to the step boundary, where a recorded pause or cancellation may follow the decision.
    return 'next';
  }
  if (decision.decision === 'denied')
    return refuseStep(w, request.step, request.tool, request.proposalId, {
      outcome: 'refuse',
      check: 'approval',
      code: 'approval_denied',
      message: `${decision.by} denied the approval`,
    });
  return undefined;
}

/** Takes a tool step: the plan's `node`, or (undefined) the proposal the run's approval approved. */
export async function walkToolStep(walk: Walk, node: ToolNode | undefined): Promise<Flow> {
  const allowed = await allowToolStep(walk, node);
  if (typeof allowed === 'string') return allowed;
  const { w, fx, tools, o } = walk;
  const { a, tool, minted } = allowed;
  // The durability rule: an allow decision is committed before its effect, unless the tool is
  // idempotent and everything uncommitted is reproducible from the durable head (see RunWriter).
  // A delegation's allow is always committed first: it names the child before the child exists.
  // A simulated call acts on nothing, so making it again after a crash is as safe as an idempotent one.
  if (minted || !(repeatable(tool, a) && w.reproducible)) await w.commit();
  // Execute and record (record-outcome.ts `invokeStep`, inlined). An unknown outcome (replaying a
  // crash) leaves the step in flight, for settle-in-flight.ts.
  const called = toolOf(tools, a);
  recordOutcome(walk, called, a, await fx.invoke(called, a, w.state, callSignal(called, o)));
  return 'next';
}

/** A tool step's decision recorded as an allow, ready to be executed (not yet committed). */
export interface AllowedCall {
  readonly a: PayloadOf<'step.allowed'>;
  readonly tool: ToolDefinition;
  /** The step delegates: its child writ was minted (its allow is committed before its call). */
  readonly minted: boolean;
}

/**
 * A tool step up to its decision: resolve -> check -> record the allow; or where the walk goes
 * instead (refused, waiting for a person, held). Executes nothing (walkToolStep and a parallel
 * round, parallel-step.ts, do).
 */
export async function allowToolStep(walk: Walk, node: ToolNode | undefined): Promise<AllowedCall | Flow> {
  const { w, fx, tools, o } = walk;
  const s = w.state;
  const approved = node === undefined;
  let step: string;
  let toolName: string;
  let args: Record<string, unknown>;
  let proposalId: PayloadOf<'step.allowed'>['proposalId'];
  if (node) {
    step = node.id;
    toolName = node.step.tool;
    let planned: StepArgs;
    try {
      planned = await stepArgs(w, node.step, tools, fx, walk.planner, node.iteration);
    } catch (e) {
      return unresolvedStep(walk, step, toolName, e);
    }
    if (!planned.ok) return refuseStep(w, step, toolName, null, planned.refusal);
    args = planned.args;
    proposalId = proposalIdFor(s.runId, step, toolName, args);
  } else {
    // An approved proposal keeps the id it was approved under (a fork inherits its source's): the
    // allow that acts on it closes the approval, so one approval covers exactly one execution.
    ({ step, tool: toolName, args, proposalId } = s.approval!.request);
  }
  const tool = tools.get(toolName);
  if (!tool)
    return refuseStep(w, step, toolName, proposalId, {
      outcome: 'refuse',
      check: 'validate',
      code: 'unknown_tool',
      message: `no tool named ${toolName} is registered`,
    });
  const decision = checkStep(walk, tool, step, args, proposalId, approved);
  if (typeof decision === 'string') return decision;
  // A step runs again only after its earlier call was reconciled as never having happened.
  const attempt = (s.attempts[step] ?? 0) + 1;
  // How the call is carried out: live, or (a simulated run, a replay fork) as its effects say.
  const mode = fx.mode?.(tool, step, s);
  // core.delegate: the child writ is minted now; a refusal leaves no child (mint-delegation.ts).
  const minted =
    toolName === DELEGATE_TOOL && mode !== 'simulated'
      ? await mintFor(fx, s, {
          step,
          attempt,
          args,
          costCents: decision.costCents,
          ...(o.governance?.writ ? { writ: o.governance.writ } : {}),
        })
      : undefined;
  if (minted && !minted.ok) {
    const policy = decision.policy ? { policy: decision.policy } : {};
    return refuseStep(w, step, toolName, proposalId, {
      outcome: 'refuse',
      ...policy,
      ...minted.refusal,
    } as Decision);
  }
  // Optional fields assigned, not spread: this runs for every step of every run.
  const payload: PayloadOf<'step.allowed'> = {
    step,
    tool: toolName,
    proposalId,
    args,
    idempotencyKey: idempotencyKeyFor(s.runId, step, attempt),
    attempt,
    costCents: decision.costCents,
  };
  if (approved && s.approval?.decision) payload.approvedBy = s.approval.decision.by;
  if (decision.policy) payload.policy = decision.policy;
  if (minted?.ok) payload.delegation = minted.delegation;
  if (mode) payload.mode = mode;
  // Under a writ the allow takes its share of the budget every run under the writ shares: it may
  // commit here with a reservation, or the store refuses it and the step is refused (writ-budget.ts).
  const g = o.governance;
  const allowed = g?.writ
    ? await allowUnderWrit(w, fx, payload, {
        writ: g.writ,
        maxSteps: walk.spec.limits.maxSteps,
        plan: walk.plan,
        policy: decision.policy,
      })
    : w.add('step.allowed', payload);
  if (!('payload' in allowed)) return refuseStep(w, step, toolName, proposalId, allowed);
  return { a: allowed.payload, tool, minted: minted !== undefined };
}
