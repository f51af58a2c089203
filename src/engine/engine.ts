/**
 * The engine: walks a run's execution plan, one step at a time —
 * resolve arguments -> check (schema, step limit, spend cap, destructive guardrail) -> record the
 * decision -> execute -> record the result. It is the only orchestration in Keel.
 *
 * It must never call a tool without a recorded allow decision (durable first, unless the tool is
 * idempotent and the uncommitted entries are reproducible from the durable head), never re-run an
 * effect whose outcome is unknown unless the tool is idempotent (same idempotency key), and never
 * read clock, random or env except through recorded sources.
 */
import { canonicalize } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import {
  chainEntry,
  decodeEntry,
  type EventRecord,
  type PayloadOf,
  type RunStatus,
} from '../core/ledger/index.ts';
import { usdToCents } from '../core/money.ts';
import {
  checkProposal,
  compilePlan,
  type Decision,
  foldRun,
  idempotencyKeyFor,
  nextNode,
  proposalIdFor,
  type RunState,
  runIdFor,
  startState,
} from '../core/run/index.ts';
import { resolveArgs } from '../core/spec/index.ts';
import type { RawSources, RunRecord, Store, VersionRecord } from '../ports/index.ts';
import { drawSource } from './recording-sources.ts';
import { RunWriter } from './run-writer.ts';
import type { ToolRegistry } from './tool-registry.ts';

export const ENGINE_VERSION = 'keel/0.1.0';

export interface EngineOptions {
  readonly store: Store;
  readonly tools: ToolRegistry;
  readonly sources: RawSources;
  readonly engineVersion?: string;
}

export interface RunSummary {
  readonly runId: string;
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly status: RunStatus;
  readonly reason?: string;
}

export type ApprovalDecision = 'approved' | 'denied';

export class Engine {
  private readonly store: Store;
  private readonly tools: ToolRegistry;
  private readonly sources: RawSources;
  readonly engineVersion: string;

  constructor(o: EngineOptions) {
    this.store = o.store;
    this.tools = o.tools;
    this.sources = o.sources;
    this.engineVersion = o.engineVersion ?? ENGINE_VERSION;
  }

  private now = (): string => new Date(this.sources.clock.now()).toISOString();

  /** Starts (and drives) the run of `version` for `event`; an existing run with the same identity is returned as is. */
  async start(version: VersionRecord, event: EventRecord): Promise<{ run: RunSummary; created: boolean }> {
    const runId = runIdFor(version.tenant, version.workflowId, version.specHash, event);
    const existing = await this.store.getRun(version.tenant, runId);
    if (existing) return { run: summaryOf(existing), created: false };
    const payload: PayloadOf<'run.started'> = {
      tenant: version.tenant,
      workflowId: version.workflowId,
      version: version.version,
      specHash: version.specHash,
      status: version.status,
      event,
      engine: this.engineVersion,
    };
    const root = chainEntry(runId, null, 'run.started', payload, this.now());
    const state = startState(root.entry);
    const writer = new RunWriter(this.store, state, null, this.now, {
      workflowId: version.workflowId,
      version: version.version,
      specHash: version.specHash,
      eventId: event.id,
      eventType: event.type,
    });
    writer.addRoot(root.stored);
    try {
      await this.drive(writer, version);
    } catch (e) {
      const raced =
        isKeelError(e) && e.code === ErrorCode.headConflict
          ? await this.store.getRun(version.tenant, runId)
          : undefined;
      if (raced) return { run: summaryOf(raced), created: false };
      throw e;
    }
    return { run: stateSummary(state), created: true };
  }

  /** Continues a run from its ledger head (after a restart). Waiting and finished runs are left as they are. */
  async resume(tenant: string, runId: string): Promise<RunSummary> {
    const { state, version } = await this.load(tenant, runId);
    if (state.finished || (state.approval && !state.approval.decision)) return stateSummary(state);
    await this.drive(new RunWriter(this.store, state, state.head, this.now), version);
    return stateSummary(state);
  }

  /** Resolves the run's pending approval exactly once, then continues (or stops) the run. */
  async resolveApproval(
    tenant: string,
    runId: string,
    r: { decision: ApprovalDecision; by: string; note?: string },
  ): Promise<RunSummary> {
    const { state, version, entries } = await this.load(tenant, runId);
    const pending = state.approval && !state.approval.decision ? state.approval.request : undefined;
    if (!pending) {
      const prior = entries.filter((e) => e.kind === 'approval.resolved').at(-1);
      if (prior) {
        const p = prior.payload as PayloadOf<'approval.resolved'>;
        throw new KeelError(
          ErrorCode.alreadyResolved,
          `the approval of run ${runId} was already ${p.decision} by ${p.by}`,
          {
            runId,
            proposalId: p.proposalId,
            decision: p.decision,
            by: p.by,
          },
        );
      }
      throw new KeelError(
        ErrorCode.runState,
        `run ${runId} is ${state.status}; it is not waiting for an approval`,
        {
          runId,
          status: state.status,
        },
      );
    }
    const writer = new RunWriter(this.store, state, state.head, this.now);
    writer.add('approval.resolved', {
      proposalId: pending.proposalId,
      decision: r.decision,
      by: r.by,
      ...(r.note ? { note: r.note } : {}),
    });
    writer.approvalClosed(pending.proposalId);
    try {
      await this.drive(writer, version);
    } catch (e) {
      // Another approver got there first: report theirs, never apply ours on top.
      if (isKeelError(e) && e.code === ErrorCode.headConflict) return this.resolveApproval(tenant, runId, r);
      throw e;
    }
    return stateSummary(state);
  }

  private async load(tenant: string, runId: string) {
    const run = await this.store.getRun(tenant, runId);
    if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
    const version = await this.store.getVersion(tenant, run.workflowId, run.version);
    if (!version || version.specHash !== run.specHash) {
      throw new KeelError(
        ErrorCode.notFound,
        `run ${runId} is pinned to ${run.workflowId} v${run.version} (${run.specHash}), which is not in this store`,
        { runId, workflowId: run.workflowId, version: run.version },
      );
    }
    const entries = (await this.store.readEntries(tenant, runId)).map(decodeEntry);
    return { run, version, entries, state: foldRun(entries) };
  }

  /** Walks the plan until the run finishes, waits for a person, or cannot safely continue. */
  private async drive(w: RunWriter, version: VersionRecord): Promise<void> {
    const s = w.state;
    const spec = version.spec;
    const plan = compilePlan(spec);
    const capCents = usdToCents(spec.limits.maxCostUsd);
    while (!s.finished) {
      if (s.inFlight) {
        // A recorded allow without a result: the effect may have happened before a crash.
        const tool = this.tools.get(s.inFlight.tool);
        if (!tool?.idempotent) {
          s.status = 'outcome_unknown';
          break;
        }
        await this.execute(w, s.inFlight);
        continue;
      }
      let step: string;
      let toolName: string;
      let args: Record<string, unknown>;
      let approved = false;
      if (s.approval) {
        const { request, decision } = s.approval;
        if (!decision) break;
        if (decision.decision === 'denied') {
          this.refuse(w, request.step, request.tool, request.proposalId, {
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
        const resolved = resolveArgs(node.step.args, {
          event: s.event,
          steps: Object.fromEntries(Object.entries(s.outputs).map(([k, output]) => [k, { output }])),
          draw: (ref) => drawSource(this.sources, w, ref),
        });
        if (!resolved.ok) {
          this.refuse(w, step, toolName, null, {
            outcome: 'refuse',
            check: 'resolve',
            code: 'unresolved_arguments',
            message: resolved.problems.map((p) => `${p.field}: ${p.message}`).join('; '),
          });
          break;
        }
        args = resolved.value;
      }
      const tool = this.tools.get(toolName);
      const proposalId = proposalIdFor(s.runId, step, toolName, args);
      if (!tool) {
        this.refuse(w, step, toolName, proposalId, {
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
        maxSteps: spec.limits.maxSteps,
        spentCents: s.spentCents,
        capCents,
        versionStatus: s.versionStatus,
        approved,
      });
      if (decision.outcome === 'refuse') {
        this.refuse(w, step, toolName, proposalId, decision);
        break;
      }
      if (decision.outcome === 'require_approval') {
        w.add('approval.requested', {
          step,
          tool: toolName,
          proposalId,
          args,
          costCents: decision.costCents,
          reason: decision.reason,
          channel: decision.channel,
        });
        w.approvalOpened({
          tenant: s.tenant,
          runId: s.runId,
          proposalId,
          step,
          tool: toolName,
          args,
          reason: decision.reason,
          channel: decision.channel,
          requestedAt: this.now(),
        });
        break;
      }
      const attempt = 1;
      const allowed = w.add('step.allowed', {
        step,
        tool: toolName,
        proposalId,
        args,
        idempotencyKey: idempotencyKeyFor(s.runId, step, attempt),
        attempt,
        costCents: decision.costCents,
        ...(approved && s.approval?.decision ? { approvedBy: s.approval.decision.by } : {}),
      });
      // The durability rule: an allow decision is committed before its effect, unless the tool is
      // idempotent and everything uncommitted is reproducible from the durable head (see RunWriter).
      if (!(tool.idempotent && w.reproducible)) await w.commit();
      await this.execute(w, allowed.payload);
    }
    await w.commit();
  }

  private refuse(
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
    });
    w.add('run.finished', { status: 'refused', outputs: w.state.outputs, reason: `${tool}: ${d.message}` });
  }

  private async execute(w: RunWriter, a: PayloadOf<'step.allowed'>): Promise<void> {
    const s = w.state;
    const tool = this.tools.get(a.tool);
    if (!tool)
      throw new KeelError(ErrorCode.unknownTool, `tool ${a.tool} is no longer registered`, { tool: a.tool });
    let output: unknown;
    try {
      output = await tool.handler(structuredClone(a.args), {
        tenant: s.tenant,
        runId: s.runId,
        step: a.step,
        idempotencyKey: a.idempotencyKey,
        attempt: a.attempt,
      });
      output = output === undefined ? null : output;
      canonicalize(output);
    } catch (e) {
      const error = {
        code: isKeelError(e)
          ? e.code
          : typeof (e as { code?: unknown })?.code === 'string'
            ? (e as { code: string }).code
            : 'tool_error',
        message: e instanceof Error ? e.message : String(e),
      };
      w.add('step.failed', { step: a.step, tool: a.tool, proposalId: a.proposalId, error });
      w.add('run.finished', { status: 'failed', outputs: s.outputs, reason: `${a.tool}: ${error.message}` });
      return;
    }
    w.add('step.completed', {
      step: a.step,
      tool: a.tool,
      proposalId: a.proposalId,
      output,
      costCents: a.costCents,
    });
  }
}

function summaryOf(r: RunRecord): RunSummary {
  return { runId: r.runId, tenant: r.tenant, workflowId: r.workflowId, version: r.version, status: r.status };
}

function stateSummary(s: RunState): RunSummary {
  return {
    runId: s.runId,
    tenant: s.tenant,
    workflowId: s.workflowId,
    version: s.version,
    status: s.status,
    ...(s.finished?.reason ? { reason: s.finished.reason } : {}),
  };
}
