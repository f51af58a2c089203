/**
 * Every change of a workflow's lifecycle — a promotion, a demotion, a rollout's start, advance,
 * completion or rollback — is a record naming who, when, why (an override's reason) and on what
 * evidence, chained per workflow by hash: each record's hash covers the one before it, so an edit
 * of any record, or one taken out, is found by `verifyPromotionChain` (`keel verify --workflow`).
 * Records from before the chain (no stored hash) are hashed in place, so they are covered too.
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { WorkflowStatus } from '../spec/index.ts';

/** What a record does: move a version up (`promote`), down (`demote`), or a rollout step. */
export type LifecycleKind = 'promote' | 'demote' | 'rollout' | 'rollback';

export interface PromotionRecord {
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly from: WorkflowStatus;
  readonly to: WorkflowStatus;
  readonly by: string;
  readonly at: string;
  /** Absent on records from before lifecycle kinds (they read as `promote`). */
  readonly kind?: LifecycleKind;
  /** The evidence the move was judged on: a gate report, a rollout's figures (JSON). */
  readonly evidence?: unknown;
  /** Set when a person promoted past an unmet gate: why. */
  readonly override?: { readonly reason: string };
  /** The hash of the record before it in the workflow's chain; `genesis` for the first. */
  readonly prevHash?: string;
  readonly hash?: Digest;
}

export const GENESIS = 'genesis';

/** A record's hash, given the hash of the record before it (or GENESIS). */
export function promotionHash(r: PromotionRecord, prev: string): Digest {
  return hashOf({
    kind: 'keel.promotion',
    prev,
    tenant: r.tenant,
    workflowId: r.workflowId,
    version: r.version,
    from: r.from,
    to: r.to,
    by: r.by,
    at: r.at,
    lifecycle: r.kind ?? 'promote',
    evidence: r.evidence ?? null,
    override: r.override ?? null,
  });
}

export type ChainResult =
  | { readonly ok: true; readonly records: number; readonly head: string; readonly unchained: number }
  | { readonly ok: false; readonly records: number; readonly index: number; readonly message: string };

/**
 * Checks a workflow's records in their stored order: each hash is recomputed from the record and
 * the one before it; a stored `prevHash` must name the hash before it, and a stored `hash` must
 * be the recomputed one. `unchained` counts records from before the chain (no stored hash), which
 * may only come first.
 */
export function verifyPromotionChain(records: readonly PromotionRecord[]): ChainResult {
  let prev = GENESIS;
  let unchained = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const fail = (message: string): ChainResult => ({
      ok: false,
      records: records.length,
      index: i,
      message,
    });
    if (r.hash === undefined) {
      if (unchained !== i) return fail(`record ${i + 1} has no hash, after records that have one`);
      unchained++;
    } else {
      if (r.prevHash !== prev)
        return fail(`record ${i + 1} names ${r.prevHash ?? 'nothing'} as the record before it, not ${prev}`);
      const h = promotionHash(r, prev);
      if (h !== r.hash)
        return fail(
          `record ${i + 1} (${r.workflowId} v${r.version} ${r.from} -> ${r.to} by ${r.by}) does not hash to its stored hash: it was edited`,
        );
    }
    prev = promotionHash(r, prev);
  }
  return { ok: true, records: records.length, head: prev, unchained };
}

/** The hash a new record must name as the one before it, after `records` (GENESIS when none). */
export function chainHead(records: readonly PromotionRecord[]): string {
  let prev = GENESIS;
  for (const r of records) prev = promotionHash(r, prev);
  return prev;
}
