/**
 * What a tenant's governance says of its runs, as the engine applies it: the policy a new run is
 * pinned to, the writ chain a new run is admitted under (verified against the tenant's trusted
 * keys, configured and stored, and its revocations, then stored by content), and what a walk of a
 * run is checked against (the policy pinned in its root, the writ there). A refusal writes nothing.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { RunWrit } from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';
import type { EngineContext } from './engine-context.ts';
import { admitWrit, runGovernance } from './governance.ts';
import type { WalkOptions } from './walk.ts';

/** The policy a new run of the tenant is pinned to: the tenant's policy now, if it has one. */
export function currentPolicy(ctx: EngineContext, tenant: string): { policy?: Digest } {
  const p = ctx.governance?.policyFor(tenant);
  return p ? { policy: p.hash } : {};
}

/**
 * The writ a run of the tenant would start under, or writ_refused, writing nothing: what `start`
 * checks, for a caller that must refuse before it records anything (an event's claim).
 */
export async function checkWrit(
  ctx: EngineContext,
  chain: readonly unknown[],
  tenant: string,
): Promise<ReturnType<typeof admitWrit>> {
  const stored = await ctx.governance?.writTrustFor?.(tenant);
  const trusted = stored?.trusted ?? ctx.governance?.trustedFor(tenant) ?? [];
  return admitWrit(chain, tenant, trusted, stored?.revoked);
}

/**
 * Verifies a writ chain for a new run of the tenant (its trusted keys, configured and stored, and
 * revocations) and stores the chain by content: what the run's root records is the hash.
 */
export async function admitChain(
  ctx: EngineContext,
  chain: readonly unknown[],
  tenant: string,
): Promise<RunWrit> {
  return ctx.writChains.record(tenant, await checkWrit(ctx, chain, tenant));
}

/** The walk options of a run: its governance (the policy pinned in its root, the writ there). */
export async function walkOptionsFor(
  ctx: EngineContext,
  s: RunState,
  o: WalkOptions = {},
): Promise<WalkOptions> {
  // Under a writ, the tenant's stored keys and revoked writs are read before every walk.
  const stored = s.writ ? await ctx.governance?.writTrustFor?.(s.tenant) : undefined;
  const chain = s.writ ? await ctx.writChains.chainOf(s.tenant, s.writ.hash) : undefined;
  const governance = runGovernance(ctx.governance, s, chain, stored);
  const withWaits = { ...o, eventWaits: ctx.store.waits };
  return governance ? { ...withWaits, governance } : withWaits;
}
