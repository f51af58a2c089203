/**
 * Governance of runs: which policy judges a tenant's proposals, which keys a tenant trusts to sign
 * writs, admitting a writ when a run starts, and what a walk needs to check both.
 *
 * A writ is verified against the tenant's trusted keys before its run exists (a refusal creates
 * nothing) and recorded in the run's root, so a resumed run re-reads it from the ledger. Budget
 * usage is folded from the ledger (the run state), never counted in memory, so a restart cannot
 * reset it. Nothing here reads a clock: the walk passes the time of the decision entry.
 */
import { canonicalize, type Digest } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { Policy } from '../core/policy/index.ts';
import type { RunState } from '../core/run/index.ts';
import {
  type SignedWrit,
  type TrustedKey,
  verifyWritChain,
  type WritBudget,
  WritCode,
  type WritViolation,
} from '../core/writs/index.ts';

/** Per-tenant governance, as the composition root configures it. */
export interface GovernanceConfig {
  /** The policy new runs of the tenant are pinned to; undefined: no policy check. */
  readonly policyFor: (tenant: string) => Policy | undefined;
  /**
   * A policy of the tenant by its hash, if this process has seen it: a run is judged to its end by
   * the policy it started under, even after the tenant's policy changed.
   */
  readonly policyByHash?: (tenant: string, hash: Digest) => Policy | undefined;
  /** Keys trusted to sign the tenant's writs (roots and children). */
  readonly trustedFor: (tenant: string) => readonly TrustedKey[];
  /**
   * The tenant's writ trust as the store has it, read before each walk under a writ and before a
   * writ is admitted: the configured keys plus the tenant's stored (unretired) keys, and its revoked
   * writ hashes. The composition root caches it (docs/governance.md states the staleness bound).
   */
  readonly writTrustFor?: (tenant: string) => Promise<TenantWritTrust>;
  /**
   * The tenant's revoked writs when no `writTrustFor` read is made (replay): typically a function
   * of the decision's time, so a replay judges each decision as it was judged when recorded.
   */
  readonly revokedFor?: (tenant: string) => RevokedWrits;
}

/** Revoked writ hashes: a set, or the set as of a decision's time (ISO instant). */
export type RevokedWrits = ReadonlySet<string> | ((now: string) => ReadonlySet<string>);

/** The revoked hashes a decision at `now` is judged against. */
export function revokedAsOf(r: RevokedWrits | undefined, now: string): ReadonlySet<string> {
  return r === undefined ? NO_REVOCATIONS : typeof r === 'function' ? r(now) : r;
}

/** A tenant's keys (configured and stored) and revoked writ hashes, as of one read. */
export interface TenantWritTrust {
  readonly trusted: readonly TrustedKey[];
  readonly revoked: ReadonlySet<string>;
}

/** What one walk checks each proposal against; absent parts are not checked. */
export interface RunGovernance {
  readonly policy?: Policy;
  readonly writ?: {
    readonly chain: readonly SignedWrit[];
    readonly trusted: readonly TrustedKey[];
    /** The tenant's revoked writ hashes; absent: nothing is revoked. */
    readonly revoked?: RevokedWrits;
  };
}

/** No revoked writ: a Keel without stored writ trust, and replay (which judges as the record did). */
export const NO_REVOCATIONS: ReadonlySet<string> = new Set();

function refused(what: string, v: WritViolation, more: number): KeelError {
  return new KeelError(
    ErrorCode.writRefused,
    `${what}: ${v.code}: ${v.field ? `${v.field}: ` : ''}${v.message}${more > 0 ? ` (+${more} more)` : ''}`,
    { code: v.code, field: v.field },
  );
}

/**
 * A writ admitted for a run: the leaf's hash (what the run's root records), the verified chain and
 * its canonical text (what the store keeps, see writ-chains.ts).
 */
export interface AdmittedWrit {
  readonly hash: Digest;
  readonly chain: readonly SignedWrit[];
  readonly canonical: string;
}

/**
 * Verifies a writ chain (root first) for a run of `tenant` before the run exists: every link
 * signed by a key the tenant trusts, the chain intact, the writ issued to this tenant. Throws
 * KeelError writ_refused (`details.code` the writ code) or writ_invalid for a chain that is not a list.
 *
 * A chain is read once per array: admitting the same array again answers from memory (revocations
 * are still checked each time), so a caller must not change a chain after presenting it.
 */
export function admitWrit(
  chain: unknown,
  tenant: string,
  trusted: readonly TrustedKey[],
  revoked: ReadonlySet<string> = NO_REVOCATIONS,
): AdmittedWrit {
  if (!Array.isArray(chain) || chain.length === 0)
    throw new KeelError(ErrorCode.writInvalid, 'writ: chain: expected a non-empty list [root, ..., writ]', {
      field: 'chain',
    });
  const seen = admittedArrays.get(chain);
  if (seen && seen.trusted === trusted && seen.tenant === tenant) return notRevoked(seen, revoked);
  let canonical: string;
  try {
    canonical = canonicalize(chain);
  } catch (e) {
    throw new KeelError(ErrorCode.writInvalid, `writ: chain: ${(e as Error).message}`, { field: 'chain' });
  }
  const known = admitted.get(canonical);
  if (known && known.trusted === trusted && known.tenant === tenant) {
    admittedArrays.set(chain, known);
    return notRevoked(known, revoked);
  }
  // The copy is what the store keeps and the walk checks, so its verification is the one remembered.
  const copy = JSON.parse(canonical) as unknown[];
  const r = verifyWritChain(copy, trusted, canonical);
  if (!r.ok) throw refused(`writ refused at link ${r.index}`, r.violations[0]!, r.violations.length - 1);
  const leaf = r.leaf.body;
  if (leaf.tenant !== tenant)
    throw refused(
      'writ refused',
      {
        code: WritCode.tenantDenied,
        field: 'tenant',
        message: `writ ${leaf.id} is for tenant ${leaf.tenant}, not ${tenant}`,
      },
      0,
    );
  const writ: AdmittedWrit = { hash: r.hashes[r.hashes.length - 1]!, chain: copy as SignedWrit[], canonical };
  const entry = { tenant, trusted, writ, hashes: r.hashes };
  if (admitted.size >= ADMITTED_MAX) admitted.clear();
  admitted.set(canonical, entry);
  admittedArrays.set(chain, entry);
  return notRevoked(entry, revoked);
}

/** A writ whose chain names a revoked writ (itself or an ancestor) is refused writ_revoked. */
function notRevoked(a: Admitted, revoked: ReadonlySet<string>): AdmittedWrit {
  const { writ, hashes } = a;
  if (revoked.size === 0) return writ;
  const at = hashes.findIndex((h) => revoked.has(h));
  if (at < 0) return writ;
  throw refused(
    'writ refused',
    {
      code: WritCode.revoked,
      field: `chain[${at}]`,
      message:
        at === hashes.length - 1
          ? `writ ${writ.hash} was revoked`
          : `writ ${writ.hash} derives from revoked writ ${hashes[at]}`,
    },
    0,
  );
}

interface Admitted {
  readonly tenant: string;
  readonly trusted: readonly TrustedKey[];
  readonly writ: AdmittedWrit;
  readonly hashes: readonly string[];
}

/**
 * Chains admitted lately, by their canonical text and by the array presented, with the tenant and
 * trusted key list (by identity) they were admitted for: many runs under one writ verify it once.
 */
const admitted = new Map<string, Admitted>();
const admittedArrays = new WeakMap<object, Admitted>();
const ADMITTED_MAX = 256;

/**
 * The policy a run is judged by: the one its root pins (by hash), whatever the tenant's policy is
 * now. A pinned policy this process does not have throws policy_unavailable — judging by another
 * policy instead would be silent, and ledgering a refusal would end the run for a configuration
 * mistake. A root without a pin (no policy when it started, or written before pinning) is judged
 * by the tenant's current policy.
 */
export function pinnedPolicy(cfg: GovernanceConfig | undefined, s: RunState): Policy | undefined {
  const current = cfg?.policyFor(s.tenant);
  const hash = s.policyHash;
  if (hash === undefined || current?.hash === hash) return current;
  const pinned = cfg?.policyByHash?.(s.tenant, hash);
  if (pinned?.hash === hash) return pinned;
  throw new KeelError(
    ErrorCode.policyUnavailable,
    `run ${s.runId} is pinned to policy ${hash}, which this Keel does not have (the tenant's policy is ${current ? current.hash : 'none'}); configure that policy (createKeel policies, or keel --policy with the file the run started under) to continue it`,
    { runId: s.runId, policy: hash, current: current?.hash ?? null },
  );
}

/**
 * What a walk of this run checks: the policy pinned in its root (see pinnedPolicy), and the writ
 * recorded there with the tenant's trusted keys. A run under a writ with no trusted key configured
 * for its tenant is a configuration error (thrown), not a refusal written into the run's ledger.
 */
export function runGovernance(
  cfg: GovernanceConfig | undefined,
  s: RunState,
  /** The chain of the writ the root names, read by the caller (WritChains.chainOf). */
  chain?: readonly SignedWrit[],
  /** The tenant's stored writ trust, read by the caller (see GovernanceConfig.writTrustFor). */
  stored?: TenantWritTrust,
): RunGovernance | undefined {
  const policy = pinnedPolicy(cfg, s);
  if (!s.writ) return policy ? { policy } : undefined;
  if (!chain)
    throw new KeelError(ErrorCode.internal, `run ${s.runId}: the chain of writ ${s.writ.hash} was not read`);
  const trusted = stored?.trusted ?? cfg?.trustedFor(s.tenant) ?? [];
  if (trusted.length === 0)
    throw new KeelError(
      ErrorCode.writRefused,
      `run ${s.runId} executes under writ ${s.writ.hash}, but no trusted writ key is configured for tenant ${s.tenant} (createKeel trustedKeys, or keel --trust-keys)`,
      { code: WritCode.chainUntrusted, field: 'trustedKeys', runId: s.runId },
    );
  const revoked = stored?.revoked ?? cfg?.revokedFor?.(s.tenant);
  // Runs under one writ and policy walk with one governance value (the same parts, by identity).
  const last = governed.get(chain);
  if (last && last.policy === policy && last.writ?.trusted === trusted && last.writ.revoked === revoked)
    return last;
  const writ = { chain, trusted, ...(revoked ? { revoked } : {}) };
  const g = { ...(policy ? { policy } : {}), writ };
  governed.set(chain, g);
  return g;
}

/** The governance value last built per writ chain (see runGovernance). */
const governed = new WeakMap<readonly SignedWrit[], RunGovernance>();

/**
 * The writ budget a run has used, folded from its ledger: steps and tool calls are the allows
 * that stand (one tool call per step; an allow reconciled as never having happened is void),
 * cents are what completed steps cost, plus what delegation steps reserved for child writs.
 */
export function writUsage(s: RunState): WritBudget {
  // Budget reserved for child runs (delegation) counts as used: the child writ holds it.
  // The calls in flight (parallel branches) may cost what they were allowed for: count it.
  const r = s.reserved;
  const spent = s.spentCents + s.inFlightCents;
  if (!r) return { steps: s.stepsTaken, calls: s.stepsTaken, cents: spent };
  return { steps: s.stepsTaken + r.steps, calls: s.stepsTaken + r.calls, cents: spent + r.cents };
}
