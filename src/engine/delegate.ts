/**
 * Delegation: a step calls the core tool `core.delegate` to run another workflow as a child run,
 * under a child writ attenuated from the parent's leaf writ and signed with the tenant's
 * delegation key. The engine handles that tool itself; its handler is never called.
 *
 * Owns the child's side: walking the child (its content-derived run id names parent run, step and
 * attempt, so a resumed parent finds the same child) and turning its end into the parent step's
 * outcome, and the live effects that do so. Minting the child writ (a refusal the walk ledgers
 * leaves no child) is mint-delegation.ts. Replay serves mints and outcomes from the parent's
 * record: it never mints, creates or walks a child. Never reads a clock.
 */
import type { Digest } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import type { Entry, EventRecord, PayloadOf, RunWrit } from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';
import type { ToolDefinition, VersionRecord } from '../ports/index.ts';
import type { Effects, StepOutcome } from './effects.ts';
import {
  DELEGATE_TOOL,
  type DelegatedBy,
  DelegationCode,
  type DelegationEntry,
  type DelegationRequest,
  isObj,
  type MintDeps,
  type MintResult,
  mintDelegation,
} from './mint-delegation.ts';

/**
 * The registered descriptor of `core.delegate`: args `{workflowId, version?, writ?, payload?}`.
 * A read as far as the parent's writ is concerned: what the child may do is bounded by its own
 * writ, a subset of the parent's. Idempotent: calling it again (a resumed parent) finds the child.
 */
export const delegateTool: ToolDefinition = {
  name: DELEGATE_TOOL,
  description:
    "Runs another workflow of the tenant as a child run under a child writ attenuated from this run's writ (`writ`: any of scopes, budget, window, effectCeiling, delegation to narrow); returns {childRunId, status, outputs}.",
  args: {
    type: 'object',
    required: ['workflowId'],
    properties: {
      workflowId: { type: 'string' },
      version: { type: 'integer', minimum: 1 },
      writ: { type: 'object' },
      payload: { type: 'object' },
    },
    additionalProperties: false,
  },
  destructive: false,
  effect: 'read',
  idempotent: true,
  scopes: [],
  handler: () => {
    throw Object.assign(new Error('core.delegate is handled by the engine, never called as a tool'), {
      code: DelegationCode.unhandled,
    });
  },
};

/** What running a child needs of the engine: create (or find) it, recover it, cancel it, read it. */
export interface ChildRunner {
  create(
    runId: Digest,
    version: VersionRecord,
    event: EventRecord,
    o: { writ: RunWrit; delegatedBy: DelegatedBy },
  ): Promise<{ created: boolean }>;
  recover(tenant: string, runId: string): Promise<unknown>;
  cancel(tenant: string, runId: string, c: { by: string; reason: string }): Promise<unknown>;
  entries(tenant: string, runId: string): Promise<Entry[]>;
  version(tenant: string, workflowId: string, version: number): Promise<VersionRecord | undefined>;
  /**
   * Verifies the child's chain against the tenant's trusted keys (configured and stored) and
   * revocations, and stores it by content; the child's root records the returned hash.
   */
  admit(chain: readonly unknown[], tenant: string): Promise<RunWrit>;
  /** The chain of a writ a run's root names (the parent's, to extend with the child's leaf). */
  writChain(tenant: string, hash: Digest): Promise<readonly unknown[]>;
}

/** The event a child run starts from: the parent's resolved `payload`, named after the child. */
export function childEvent(s: RunState, step: string, d: DelegationEntry, payload: unknown): EventRecord {
  return {
    id: `delegation/${d.runId}`,
    type: 'keel.delegated',
    tenant: s.tenant,
    source: `keel:run/${s.runId}`,
    subject: step,
    payload: isObj(payload) ? payload : {},
    // Content, not a clock: the parent's event time (the child stamps its own entries).
    time: s.event.time,
  };
}

const fail = (code: string, message: string): StepOutcome => ({ ok: false, error: { code, message } });

/**
 * Runs (or finds) the child of an allowed delegation step and returns its end as the step's
 * outcome: completed -> `{childRunId, status, outputs}`; refused or failed -> the child's code;
 * a child that stops to wait (an approval, a suspension, a pause) is cancelled and the step fails
 * with `delegation_child_waiting` — a parent does not wait for its child yet.
 */
export async function runChild(
  runner: ChildRunner,
  a: PayloadOf<'step.allowed'>,
  s: RunState,
): Promise<StepOutcome> {
  const d = a.delegation;
  if (!d || !s.writ)
    return fail(DelegationCode.unavailable, `step ${a.step} names no minted child run; nothing was started`);
  const version = await runner.version(s.tenant, d.workflowId, d.version);
  if (!version)
    return fail(
      DelegationCode.workflowNotFound,
      `workflow ${d.workflowId} v${d.version} is not in this store`,
    );
  let writ: RunWrit;
  try {
    writ = await runner.admit([...(await runner.writChain(s.tenant, s.writ.hash)), d.writ.leaf], s.tenant);
  } catch (e) {
    if (!isKeelError(e)) throw e;
    return fail(String((e.details as { code?: unknown })?.code ?? e.code), e.message);
  }
  // The delegating entry is the allow at the head: the walk commits it and invokes at once, and a
  // resumed walk settles an in-flight allow before anything else is appended.
  const delegatedBy: DelegatedBy = { runId: s.runId, seq: s.head.seq, step: a.step, attempt: a.attempt };
  const { created } = await runner.create(d.runId, version, childEvent(s, a.step, d, a.args.payload), {
    writ,
    delegatedBy,
  });
  let entries = await runner.entries(s.tenant, d.runId);
  if (!created && !entries.some((e) => e.kind === 'run.finished')) {
    await runner.recover(s.tenant, d.runId);
    entries = await runner.entries(s.tenant, d.runId);
  }
  const end = entries.findLast((e) => e.kind === 'run.finished')?.payload as
    | PayloadOf<'run.finished'>
    | undefined;
  if (!end) {
    await runner.cancel(s.tenant, d.runId, {
      by: 'keel:delegation',
      reason: `parent run ${s.runId} (step ${a.step}) cannot wait for its child`,
    });
    return fail(
      DelegationCode.childWaiting,
      `child run ${d.runId} stopped to wait (an approval or a suspension); delegated runs must finish without waiting, so it was cancelled`,
    );
  }
  if (end.status === 'completed')
    return { ok: true, output: { childRunId: d.runId, status: end.status, outputs: end.outputs } };
  if (end.status === 'cancelled')
    return fail(DelegationCode.childCancelled, `child run ${d.runId} was cancelled: ${end.reason ?? ''}`);
  const cause = entries.findLast((e) => e.kind === 'step.refused' || e.kind === 'step.failed');
  const code =
    cause?.kind === 'step.refused'
      ? (cause.payload as PayloadOf<'step.refused'>).code
      : cause?.kind === 'step.failed'
        ? (cause.payload as PayloadOf<'step.failed'>).error.code
        : `child_${end.status}`;
  return fail(code, `child run ${d.runId} ${end.status}: ${end.reason ?? code}`);
}

/**
 * Live effects that handle `core.delegate` themselves: minting with live configuration, and the
 * child run instead of a handler call. Every other tool goes to `live` as before.
 */
export function delegatingEffects(live: Effects, deps: MintDeps, runner: ChildRunner): Effects {
  return {
    ...live,
    delegate: (r, s) => mintDelegation(s, r, deps),
    invoke: (tool, a, s, signal) =>
      tool.name === DELEGATE_TOOL ? runChild(runner, a, s) : live.invoke(tool, a, s, signal),
  };
}

/**
 * The walk's delegation hook: mints through its effects (live: the key and the store; replaying:
 * the record). Effects without delegation refuse with `delegation_unavailable`.
 */
export async function mintFor(fx: Effects, s: RunState, r: DelegationRequest): Promise<MintResult> {
  if (!fx.delegate)
    return {
      ok: false,
      refusal: {
        check: 'writ',
        code: DelegationCode.unavailable,
        message: 'this engine cannot delegate (no delegation support in its effects)',
      },
    };
  return fx.delegate(r, s);
}
