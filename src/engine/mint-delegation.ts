/**
 * Minting a delegation's child writ (docs/governance.md): the attenuation of the parent's leaf
 * writ by the step's `writ` argument, reserving from what the parent has left, signed with the
 * tenant's delegation key — or the refusal the walk ledgers instead, and then no child exists.
 * Replay serves the recorded mints (`recordedMints`, `servedMint`): it never signs, never looks up
 * a version. Deterministic: Ed25519 signatures are, and nothing here reads a clock. The private key
 * never leaves here. Running the child is delegate.ts; effects and the walk name these types.
 */
import type { KeyObject } from 'node:crypto';
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { CheckName, Entry, PayloadOf } from '../core/ledger/index.ts';
import { childRunIdFor, type RunState } from '../core/run/index.ts';
import {
  attenuate,
  type ChildRequest,
  signWrit,
  verifyWritChain,
  type WritBudget,
  writHash,
} from '../core/writs/index.ts';
import type { Registry, VersionRecord } from '../ports/index.ts';
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

export const isObj = (v: unknown): v is Record<string, unknown> =>
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
