/**
 * Delegation: a step calls the core tool `core.delegate` to run another workflow as a child run,
 * under a child writ attenuated from the parent's leaf writ and signed with the tenant's
 * delegation key. The engine handles that tool itself; its handler is never called.
 *
 * Owns minting (no writ, no key, unknown workflow or any attenuation violation is a refusal the
 * walk ledgers, and then no child exists), the child's content-derived run id (parent run, step,
 * attempt: a resumed parent finds the same child), walking the child inline and turning its end
 * into the parent step's outcome. Replay serves mints and outcomes from the parent's record: it
 * never mints, creates or walks a child. Never reads a clock; the private key never leaves here.
 */
import type { KeyObject } from 'node:crypto';
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import type { CheckName, Entry, EventRecord, PayloadOf, RunWrit } from '../core/ledger/index.ts';
import { childRunIdFor, type RunState } from '../core/run/index.ts';
import {
  attenuate,
  type ChildRequest,
  signWrit,
  verifyWritChain,
  type WritBudget,
  writHash,
} from '../core/writs/index.ts';
import type { Registry, ToolDefinition, VersionRecord } from '../ports/index.ts';
import type { Effects, StepOutcome } from './effects.ts';
import { type RunGovernance, writUsage } from './governance.ts';

export const DELEGATE_TOOL = 'core.delegate';

/** The refusal and failure codes of delegation (writ codes are the attenuation's own). */
export const DelegationCode = {
  requiresWrit: 'delegation_requires_writ',
  keyMissing: 'delegation_key_missing',
  workflowNotFound: 'delegation_workflow_not_found',
  unavailable: 'delegation_unavailable',
  childWaiting: 'delegation_child_waiting',
  childCancelled: 'delegation_child_cancelled',
  unhandled: 'delegation_unhandled',
} as const;

export type DelegationEntry = NonNullable<PayloadOf<'step.allowed'>['delegation']>;
export type DelegatedBy = NonNullable<PayloadOf<'run.started'>['delegatedBy']>;

/** A tenant's delegation key: the private key that signs child writs, and its key id. */
export interface DelegationKey {
  readonly privateKey: KeyObject;
  readonly keyId: string;
}

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

/** A refusal to delegate, as the walk records it in `step.refused`. */
export interface DelegationRefusal {
  readonly check: CheckName;
  readonly code: string;
  readonly message: string;
  readonly problems?: readonly unknown[];
  readonly writ?: { hash: Digest | null; code: string };
}

export type MintResult =
  | { readonly ok: true; readonly delegation: DelegationEntry }
  | { readonly ok: false; readonly refusal: DelegationRefusal };

/** What the walk knows when a delegation step has passed every check. */
export interface DelegationRequest {
  readonly step: string;
  readonly attempt: number;
  readonly args: Record<string, unknown>;
  /** What this step itself costs the parent (its allow counts one step and one call too). */
  readonly costCents: number;
  /** The parent's writ chain and trusted keys, when the run executes under a writ. */
  readonly writ?: RunGovernance['writ'];
}

/** Minting with live configuration: the tenant's delegation key and the store's versions. */
export interface MintDeps {
  readonly keyFor: (tenant: string) => DelegationKey | undefined;
  readonly versionFor: (
    tenant: string,
    workflowId: string,
    version: number | undefined,
  ) => Promise<VersionRecord | undefined>;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parent's remaining writ budget after this step's own allow: budget - usage (reservations included). */
function remainingAfter(leafBudget: WritBudget, s: RunState, costCents: number): WritBudget {
  const used = writUsage(s);
  return {
    cents: Math.max(0, leafBudget.cents - used.cents - costCents),
    steps: Math.max(0, leafBudget.steps - used.steps - 1),
    calls: Math.max(0, leafBudget.calls - used.calls - 1),
  };
}

/**
 * Mints the child writ of a delegation step, or says why not. The child writ is the attenuation
 * of the parent's leaf writ by `args.writ`, reserving from the parent's remaining budget, signed
 * with the tenant's delegation key; its chain (the parent's + the child) must verify against the
 * tenant's trusted keys like any writ. Deterministic: Ed25519 signatures are, and nothing here
 * reads a clock (an unspecified window is the parent's).
 */
export async function mintDelegation(s: RunState, r: DelegationRequest, deps: MintDeps): Promise<MintResult> {
  const refuse = (
    check: CheckName,
    code: string,
    message: string,
    more: Partial<DelegationRefusal> = {},
  ): MintResult => ({ ok: false, refusal: { check, code, message, ...more } });
  if (!s.writ || !r.writ)
    return refuse(
      'writ',
      DelegationCode.requiresWrit,
      `run ${s.runId} executes under no writ; delegating to a child run needs one to attenuate`,
    );
  const parentHash = s.writ.hash;
  const key = deps.keyFor(s.tenant);
  if (!key)
    return refuse(
      'writ',
      DelegationCode.keyMissing,
      `no delegation key is configured for tenant ${s.tenant} (createKeel delegationKeys)`,
      { writ: { hash: parentHash, code: DelegationCode.keyMissing } },
    );
  const workflowId = r.args.workflowId as string;
  const wanted = typeof r.args.version === 'number' ? r.args.version : undefined;
  const version = await deps.versionFor(s.tenant, workflowId, wanted);
  if (!version)
    return refuse(
      'validate',
      DelegationCode.workflowNotFound,
      `workflow ${workflowId}${wanted ? ` v${wanted}` : ''} not found in tenant ${s.tenant}${wanted ? '' : ' (no LIVE or AUTONOMOUS version)'}`,
    );
  const chain = r.writ.chain;
  const parent = chain[chain.length - 1]!.body;
  const runId = childRunIdFor(s.tenant, s.runId, r.step, r.attempt);
  const ask = isObj(r.args.writ) ? r.args.writ : {};
  const request: ChildRequest = {
    ...(ask as Partial<ChildRequest>),
    id: `delegation/${runId}`,
    subject: `run/${runId}`,
    issuer: key.keyId,
  };
  const minted = attenuate(parent, request, remainingAfter(parent.budget, s, r.costCents));
  if (!minted.ok) {
    const v = minted.violations;
    return refuse(
      'writ',
      v[0]!.code,
      `the child writ cannot be minted: ${v.map((x) => `${x.code}: ${x.field}: ${x.message}`).join('; ')}`,
      { problems: v.map((x) => ({ ...x })), writ: { hash: parentHash, code: v[0]!.code } },
    );
  }
  const leaf = signWrit(minted.body, key.privateKey);
  const verified = verifyWritChain([...chain, leaf], r.writ.trusted);
  if (!verified.ok) {
    const v = verified.violations[0]!;
    return refuse(
      'writ',
      v.code,
      `the child writ's chain does not verify at link ${verified.index}: ${v.field}: ${v.message} (is the delegation key of tenant ${s.tenant} among its trusted keys?)`,
      { writ: { hash: parentHash, code: v.code } },
    );
  }
  return {
    ok: true,
    delegation: {
      runId,
      workflowId: version.workflowId,
      version: version.version,
      writ: { hash: writHash(minted.body), leaf: { body: minted.body, signature: leaf.signature } },
    },
  };
}

/** Statuses a delegation without `version` may pick: the latest LIVE or AUTONOMOUS version. */
const ROUTABLE = ['LIVE', 'AUTONOMOUS'];

/** The version a delegation runs: the one asked for, or the workflow's latest routable one. */
export async function latestVersion(
  store: Pick<Registry, 'getVersion' | 'listVersions'>,
  tenant: string,
  workflowId: string,
  version: number | undefined,
): Promise<VersionRecord | undefined> {
  if (version !== undefined) return store.getVersion(tenant, workflowId, version);
  return (await store.listVersions(tenant, workflowId)).filter((v) => ROUTABLE.includes(v.status)).at(-1);
}

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

/** A recorded mint outcome per step attempt (an allow naming its child) or per step (a refusal). */
export function recordedMints(entries: readonly Entry[]): Map<string, MintResult> {
  const out = new Map<string, MintResult>();
  for (const e of entries) {
    if (e.kind === 'step.allowed') {
      const p = e.payload as PayloadOf<'step.allowed'>;
      if (p.delegation) out.set(`${p.step}#${p.attempt}`, { ok: true, delegation: p.delegation });
    } else if (e.kind === 'step.refused') {
      const p = e.payload as PayloadOf<'step.refused'>;
      if (p.tool !== DELEGATE_TOOL) continue;
      out.set(`${p.step}#refused`, {
        ok: false,
        refusal: {
          check: p.check,
          code: p.code,
          message: p.message,
          ...(p.problems ? { problems: p.problems } : {}),
          ...(p.writ ? { writ: { hash: p.writ.hash, code: p.writ.code ?? p.code } } : {}),
        },
      });
    }
  }
  return out;
}

/** Serves a recorded mint: replay never signs, never looks up a version, never starts a child. */
export function servedMint(mints: Map<string, MintResult>, r: DelegationRequest): MintResult {
  const m = mints.get(`${r.step}#${r.attempt}`) ?? mints.get(`${r.step}#refused`);
  if (m) return m;
  throw new KeelError(
    ErrorCode.replaySourceMissing,
    `no recorded delegation for step ${r.step} (attempt ${r.attempt}); replay never mints a child writ`,
    { step: r.step, attempt: r.attempt },
  );
}
