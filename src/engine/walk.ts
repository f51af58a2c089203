/**
 * The walk: one run's plan, step by step — resolve arguments -> check (schema, writ, policy, step
 * limit, spend cap, destructive guardrail) -> record the decision -> invoke the tool -> record the outcome.
 *
 * It never calls a tool without an allow decision in the ledger (committed first, unless the tool
 * is idempotent and the uncommitted entries are reproducible from the durable head), never
 * re-invokes an effect whose outcome is unknown unless the tool is idempotent — otherwise it asks
 * the tool's reconcile check, or suspends the run (`run.suspended`, outcome_unknown) for a person —
 * and reads sources and tool outcomes only through `Effects`, so the same walk runs live, as a
 * replay and as a fork.
 *
 * A model provider that cannot answer a step's slot (model_unavailable, after the provider's own
 * bounded retries) holds the run as paused (`run.suspended`, model_unavailable) before anything of
 * the step acts: `resume` asks the model again, and the slots answered before the outage are reused.
 *
 * Cancellation: a walk whose abort signal fires (a person cancelled the run in this process) stops
 * at the next step boundary, or as soon as the tool it is calling returns or throws — a call cut
 * that way is recorded as `step.failed` with code `cancelled` — and finishes the run as cancelled.
 * A replay is told of a recorded cancellation by its effects, at the same seq.
 */

import { ErrorCode, KeelError } from '../core/errors.ts';
import type { PayloadOf } from '../core/ledger/index.ts';
import { usdToCents } from '../core/money.ts';
import type { Policy } from '../core/policy/index.ts';
import {
  type CancelRequest,
  cancelReason,
  checkProposal,
  compilePlan,
  type Decision,
  idempotencyKeyFor,
  nextNode,
  type PolicyCheck,
  proposalIdFor,
  type RunState,
  type WritCheckContext,
} from '../core/run/index.ts';
import { excerpt, laterReaderOf } from '../core/spec/index.ts';
import { formatArgProblem, resultCostCents, resultCostProblem, validateValue } from '../core/tools/index.ts';
import { applyDeltas, type Delta, type World } from '../core/world/index.ts';
import type { Planner, ToolDefinition, VersionRecord } from '../ports/index.ts';
import { mintFor } from './delegate.ts';
import type { Effects } from './effects.ts';
import { type RunGovernance, revokedAsOf, writUsage } from './governance.ts';
import { DELEGATE_TOOL } from './mint-delegation.ts';
import type { RunWriter } from './run-writer.ts';
import { stepArgs } from './step-args.ts';
import { templatePlanner } from './template-planner.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { allowUnderWrit } from './writ-budget.ts';

export interface WalkOptions {
  /**
   * Asked before each step: true stops the walk at that step boundary, committing what it wrote
   * (a worker shutting down, or one that lost the run's lease).
   */
  readonly shouldStop?: () => boolean;
  /** The policy and writ every proposal is checked against (absent: the core checks only). */
  readonly governance?: RunGovernance;
  /**
   * Aborted (with the CancelRequest as its reason) when a person cancels the run: the walk stops
   * at the next step boundary or when the current tool call returns or throws, and finishes the
   * run as cancelled. The tool gets the signal in its context.
   */
  readonly signal?: AbortSignal;
  /** Fills the open model slots of each step (docs/planner.md); the template planner by default. */
  readonly planner?: Planner;
  /**
   * Aborted by an `immediate` pause: the call in progress of an idempotent tool is cut (the tool
   * gets the signal) and left in flight, its outcome unrecorded, to be called again with the same
   * idempotency key on resume. Any other tool's call is let finish: repeating it could repeat its effect.
   */
  readonly interrupt?: AbortSignal;
}

/** The most steps (node executions) any run takes, whatever its spec's `limits.maxSteps` says. */
export const MAX_STEPS_PER_RUN = 1000;

/** The run's cancellation, if one applies now: this walk's aborted signal, or (replaying) the record's. */
function cancellation(s: RunState, fx: Effects, o: WalkOptions): { readonly reason?: string } | undefined {
  if (o.signal?.aborted) return { reason: reasonOf(o.signal.reason) };
  return fx.cancellation?.(s);
}

function reasonOf(r: unknown): string {
  const c = r as Partial<CancelRequest> | undefined;
  return typeof c?.by === 'string' ? cancelReason(c as CancelRequest) : 'cancelled';
}

/** Finishes the run as cancelled when a cancellation applies; true when it did. */
function finishIfCancelled(w: RunWriter, fx: Effects, o: WalkOptions): boolean {
  const c = cancellation(w.state, fx, o);
  if (!c) return false;
  const s = w.state;
  if (s.approval && !s.approval.decision) w.approvalClosed(s.approval.request.proposalId);
  w.add('run.finished', {
    status: 'cancelled',
    outputs: w.state.outputs,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
  });
  return true;
}

/** Walks until the run finishes, waits for a person, or cannot safely continue; commits what it wrote. */
export async function walkRun(
  w: RunWriter,
  version: VersionRecord,
  tools: ToolRegistry,
  fx: Effects,
  o: WalkOptions = {},
): Promise<void> {
  const s = w.state;
  const spec = version.spec;
  const plan = compilePlan(spec);
  const capCents = usdToCents(spec.limits.maxCostUsd);
  const g = o.governance;
  // A simulated run (a test, a shadow) asks nobody, and is judged as its root says (`judgedAs`).
  const simulated = s.mode !== undefined;
  const judgedAs = s.judgedAs ?? s.versionStatus;
  while (!s.finished) {
    if (finishIfCancelled(w, fx, o)) break;
    if (o.shouldStop?.()) break;
    // Replaying: pauses and resumes are written again where they were recorded.
    for (let h = fx.hold?.(s); h; h = fx.hold?.(s)) {
      if (h.kind === 'run.paused') w.add('run.paused', h.payload);
      else w.add('run.resumed', h.payload);
    }
    if (s.status === 'paused') break;
    if (s.inFlight) {
      // A recorded allow without an outcome: the effect may have happened before a crash.
      if (!(await settleInFlight(w, tools, fx, s.inFlight, o, spec))) {
        // Suspended: a cancellation recorded (or asked for) meanwhile still finishes the run.
        finishIfCancelled(w, fx, o);
        break;
      }
      continue;
    }
    let step: string;
    let toolName: string;
    let args: Record<string, unknown>;
    let approved = false;
    if (s.approval) {
      const { request } = s.approval;
      const decision = s.approval.decision ?? fx.approval?.(request, s);
      if (!decision) break;
      if (!s.approval.decision) {
        w.add('approval.resolved', { ...decision, proposalId: request.proposalId });
        w.approvalClosed(request.proposalId);
        // Back to the step boundary, where a recorded pause or cancellation may follow the decision.
        continue;
      }
      if (decision.decision === 'denied') {
        refuse(w, request.step, request.tool, request.proposalId, {
          outcome: 'refuse',
          check: 'approval',
          code: 'approval_denied',
          message: `${decision.by} denied the approval`,
        });
        break;
      }
      ({ step, tool: toolName, args } = request);
      approved = true;
    } else {
      const node = nextNode(plan, s.completed);
      if (!node) {
        w.add('run.finished', { status: 'completed', outputs: s.outputs });
        break;
      }
      step = node.id;
      toolName = node.step.tool;
      let planned: Awaited<ReturnType<typeof stepArgs>>;
      try {
        planned = await stepArgs(w, node.step, tools, fx, o.planner ?? templatePlanner);
      } catch (e) {
        // The model provider could not answer (after its own bounded retries): nothing of the step
        // acted, so the run is held, paused, for `resume` to ask again once the provider is back.
        // Replaying, the record says where this happened, and the resume that followed is served.
        if (e instanceof KeelError && e.code === ErrorCode.modelUnavailable) {
          const recorded = fx.recordedOutage?.(s);
          w.add('run.suspended', {
            reason: 'model_unavailable',
            step,
            tool: toolName,
            message: recorded?.step === step ? recorded.message : excerpt(e.message, 500),
          });
          // Held: no walker keeps it (a claim takes only running runs); resume walks it again.
          w.leaseWith({ op: 'release' });
          continue;
        }
        // A step whose arguments cannot be built (a source or planner that throws, a value that has
        // no canonical form) ends the run failed, recorded, instead of leaving it running forever.
        if (!endsRunOnResolve(e)) throw e;
        w.add('run.finished', { status: 'failed', outputs: s.outputs, reason: resolveFailure(step, e) });
        break;
      }
      if (!planned.ok) {
        refuse(w, step, toolName, null, planned.refusal);
        break;
      }
      args = planned.args;
    }
    const tool = tools.get(toolName);
    // An approved proposal keeps the id it was approved under (a fork inherits its source's): the
    // allow that acts on it closes the approval, so one approval covers exactly one execution.
    const proposalId =
      approved && s.approval ? s.approval.request.proposalId : proposalIdFor(s.runId, step, toolName, args);
    if (!tool) {
      refuse(w, step, toolName, proposalId, {
        outcome: 'refuse',
        check: 'validate',
        code: 'unknown_tool',
        message: `no tool named ${toolName} is registered`,
      });
      break;
    }
    const decision = checkProposal({
      tool,
      args,
      stepsTaken: s.stepsTaken,
      maxSteps: Math.min(spec.limits.maxSteps, MAX_STEPS_PER_RUN),
      // The model's answers count against the cap too, rounded up to the next cent.
      spentCents: s.spentCents + Math.ceil(s.modelMicroUsd / 10_000),
      capCents,
      versionStatus: judgedAs,
      approved,
      writ: g?.writ ? writCheck(w, g.writ) : undefined,
      policy: g?.policy ? policyCheck(w, g.policy) : undefined,
    });
    if (decision.outcome === 'refuse') {
      refuse(w, step, toolName, proposalId, decision);
      break;
    }
    if (decision.outcome === 'require_approval') {
      const request = {
        step,
        tool: toolName,
        proposalId,
        args,
        costCents: decision.costCents,
        reason: decision.reason,
        channel: decision.channel,
        ...(decision.policy ? { policy: decision.policy } : {}),
      };
      if (simulated) {
        // would_wait_approval: nobody is asked. A shadow goes on as approved, a test as it says.
        const denied = s.mode === 'test' && s.test?.approvals === 'deny';
        w.add('approval.simulated', {
          ...request,
          assumed: denied ? 'denied' : 'approved',
          by: s.mode === 'test' ? `test ${s.test?.name ?? ''}`.trim() : 'shadow',
        });
        continue;
      }
      const e = w.add('approval.requested', request);
      w.approvalOpened({ tenant: s.tenant, runId: s.runId, ...request, requestedAt: e.at });
      continue;
    }
    // A step runs again only after its earlier call was reconciled as never having happened.
    const attempt = (s.attempts[step] ?? 0) + 1;
    // How the call is carried out: live, or (a simulated run, a replay fork) as its effects say.
    const mode = fx.mode?.(tool, step, s);
    // core.delegate: the child writ is minted now; a refusal leaves no child (delegate.ts).
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
      refuse(w, step, toolName, proposalId, { outcome: 'refuse', ...policy, ...minted.refusal } as Decision);
      break;
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
    const allowed = g?.writ
      ? await allowUnderWrit(w, fx, payload, {
          writ: g.writ,
          maxSteps: spec.limits.maxSteps,
          plan,
          policy: decision.policy,
        })
      : w.add('step.allowed', payload);
    if (!('payload' in allowed)) {
      refuse(w, step, toolName, proposalId, allowed);
      break;
    }
    // The durability rule: an allow decision is committed before its effect, unless the tool is
    // idempotent and everything uncommitted is reproducible from the durable head (see RunWriter).
    // A delegation's allow is always committed first: it names the child before the child exists.
    // A simulated call acts on nothing, so making it again after a crash is as safe as an idempotent one.
    if (minted || !(repeatable(tool, allowed.payload) && w.reproducible)) await w.commit();
    // An unknown outcome (replaying a crash) leaves the step in flight for settleInFlight.
    await invoke(w, tools, fx, allowed.payload, o, spec);
  }
  await w.commit();
}

/** Whether a call may be made again with the same key: an idempotent tool, or a simulated call. */
function repeatable(tool: ToolDefinition | undefined, a: PayloadOf<'step.allowed'>): boolean {
  return tool?.idempotent === true || a.mode === 'simulated';
}

/**
 * Errors that stop the walk without ending the run: the store's (a lost head, an unreachable
 * store) and a replay's (the ledger disagrees or lacks a value), which the caller reports.
 */
const WALK_STOPPERS: ReadonlySet<string> = new Set([
  ErrorCode.headConflict,
  ErrorCode.storeUnavailable,
  ErrorCode.replayDiverged,
  ErrorCode.replaySourceMissing,
  ErrorCode.replayUnavailable,
  ErrorCode.policyUnavailable,
]);

function endsRunOnResolve(e: unknown): boolean {
  return !(e instanceof KeelError && WALK_STOPPERS.has(e.code));
}

/** `step refund: could not build its arguments: canonical_invalid: ...` (the code, then the cause). */
function resolveFailure(step: string, e: unknown): string {
  const code =
    e instanceof KeelError
      ? e.code
      : typeof (e as { code?: unknown })?.code === 'string'
        ? (e as { code: string }).code
        : ErrorCode.internal;
  const message = e instanceof Error ? e.message : String(e);
  return `step ${step}: could not build its arguments: ${code}: ${excerpt(message, 500)}`;
}

function refuse(
  w: RunWriter,
  step: string,
  tool: string,
  proposalId: PayloadOf<'step.refused'>['proposalId'],
  d: Decision,
): void {
  if (d.outcome !== 'refuse') return;
  w.add('step.refused', {
    step,
    tool,
    proposalId,
    check: d.check,
    code: d.code,
    message: d.message,
    ...(d.problems ? { problems: d.problems } : {}),
    ...(d.policy ? { policy: d.policy } : {}),
    ...(d.writ ? { writ: d.writ } : {}),
  });
  w.add('run.finished', { status: 'refused', outputs: w.state.outputs, reason: `${tool}: ${d.message}` });
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

/**
 * A step allowed whose outcome is not recorded. An idempotent tool is called again with the same
 * idempotency key; any other is never called again: its reconcile check (or, replaying, the
 * recorded reconciliation) may settle it, and otherwise the run is suspended as outcome_unknown.
 * Returns false when the run must stop here.
 */
async function settleInFlight(
  w: RunWriter,
  tools: ToolRegistry,
  fx: Effects,
  a: PayloadOf<'step.allowed'>,
  o: WalkOptions,
  spec: VersionRecord['spec'],
): Promise<boolean> {
  const s = w.state;
  const tool = tools.get(a.tool);
  if (repeatable(tool, a) && !s.suspended && (await invoke(w, tools, fx, a, o, spec))) return true;
  let found = await fx.reconcile?.(tool, a, s);
  if (!(found && 'decision' in found) && !s.suspended) {
    const why = !tool
      ? `${a.tool} is not registered here`
      : found
        ? found.problem
        : `${a.tool} is not idempotent and has no reconcile check`;
    const recorded = fx.recordedSuspension?.(s);
    w.add('run.suspended', {
      reason: 'outcome_unknown',
      step: a.step,
      tool: a.tool,
      proposalId: a.proposalId,
      idempotencyKey: a.idempotencyKey,
      message:
        recorded?.proposalId === a.proposalId
          ? recorded.message
          : `${a.tool} (step ${a.step}, attempt ${a.attempt}) started but its outcome was never recorded; ${why}, so calling it again could repeat the effect`,
    });
    // Live, a suspended run waits for a person; replaying, this serves the decision recorded later.
    found = await fx.reconcile?.(tool, a, s);
  }
  if (found && 'decision' in found) {
    w.add('step.reconciled', found.decision);
    return true;
  }
  return false;
}

/**
 * Calls the tool and records its outcome; false when the outcome is unknown (replay of a crash).
 * A call that fails after the run was cancelled is recorded as failed with code `cancelled`, and
 * the run finishes as cancelled; one that returns is recorded as it returned (its effect happened).
 */
async function invoke(
  w: RunWriter,
  tools: ToolRegistry,
  fx: Effects,
  a: PayloadOf<'step.allowed'>,
  o: WalkOptions,
  spec: VersionRecord['spec'],
): Promise<boolean> {
  const tool = tools.get(a.tool);
  if (!tool)
    throw new KeelError(ErrorCode.unknownTool, `tool ${a.tool} is no longer registered`, { tool: a.tool });
  const cuttable = tool.idempotent && o.interrupt;
  const signal =
    cuttable && o.signal ? AbortSignal.any([o.signal, o.interrupt!]) : cuttable ? o.interrupt : o.signal;
  const outcome = await fx.invoke(tool, a, w.state, signal);
  // Cut by an immediate pause: the call stays in flight, unrecorded, and is made again on resume.
  if (!outcome.ok && cuttable && o.interrupt?.aborted && !o.signal?.aborted) return false;
  // The outcome of a call that must not be repeated is committed before the next effect.
  if (!repeatable(tool, a) && !('unknown' in outcome)) w.markUnreproducible();
  if (outcome.ok) {
    const failure = postconditionFailure(tool, outcome, w.state.world);
    if (failure) {
      w.add('step.failed', { step: a.step, tool: a.tool, proposalId: a.proposalId, error: failure });
      w.add('run.finished', {
        status: 'failed',
        outputs: w.state.outputs,
        reason: `${a.tool}: ${failure.message}`,
      });
      return true;
    }
    w.add('step.completed', {
      step: a.step,
      tool: a.tool,
      proposalId: a.proposalId,
      output: outcome.output,
      // What the call cost: the allow's (fixed, from an argument) plus any the result declares.
      costCents: a.costCents + resultCostCents(tool, outcome.output),
      ...(outcome.deltas ? { deltas: outcome.deltas } : {}),
    });
    return true;
  }
  if ('unknown' in outcome) return false;
  if ('suppressed' in outcome) {
    w.add('step.suppressed', {
      step: a.step,
      tool: a.tool,
      proposalId: a.proposalId,
      reason: outcome.suppressed,
    });
    // The run goes on only if no later step reads the output this step does not have.
    const reader = laterReaderOf(spec, a.step);
    if (reader)
      w.add('run.finished', {
        status: 'failed',
        code: 'needs_simulation',
        outputs: w.state.outputs,
        reason: `needs_simulation: step ${reader} reads the output of step ${a.step}, but ${a.tool} has no simulate; give ${a.tool} a simulate to run this workflow simulated`,
      });
    return true;
  }
  const error = o.signal?.aborted
    ? { code: 'cancelled', message: `${a.tool} was stopped: ${reasonOf(o.signal.reason)}` }
    : outcome.error;
  w.add('step.failed', { step: a.step, tool: a.tool, proposalId: a.proposalId, error });
  if (finishIfCancelled(w, fx, o)) return true;
  w.add('run.finished', {
    status: 'failed',
    outputs: w.state.outputs,
    reason: `${a.tool}: ${outcome.error.message}`,
  });
  return true;
}

/**
 * A step's result commits only if its postconditions hold: the output fits the tool's declared
 * result schema, and its deltas apply to a trial copy of the run's world. The failure, if any.
 */
function postconditionFailure(
  tool: ToolDefinition,
  outcome: { output: unknown; deltas?: readonly Delta[] },
  world: World,
): { code: string; message: string } | undefined {
  if (tool.result) {
    const problems = validateValue(tool.result, outcome.output);
    if (problems.length > 0) {
      return { code: 'postcondition_failed', message: `output ${problems.map(formatArgProblem).join('; ')}` };
    }
  }
  // A declared result cost is a postcondition too: the call cannot pass as free.
  const cost = resultCostProblem(tool, outcome.output);
  if (cost) return { code: 'postcondition_failed', message: cost };
  if (outcome.deltas) {
    const r = applyDeltas(world, outcome.deltas);
    if (!r.ok) return { code: r.failure.code, message: r.failure.message };
  }
  return undefined;
}
