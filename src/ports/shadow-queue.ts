/**
 * The shadow queue (docs/lifecycle.md, "The shadow queue"): comparisons still to make, per tenant,
 * claimed under leases like runs so a dead drainer's work is taken over, retried with backoff and
 * kept as failed after the last attempt. Operational, never part of a ledger: an item goes when
 * its comparison is kept (evidence.ts). Items queued with a live run's root ride its append.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { EventRecord } from '../core/ledger/index.ts';

/**
 * One comparison to make (docs/lifecycle.md, "The shadow queue"): a SHADOW version on one event of
 * its workflow, beside the live run the event started (`liveRunId`) or where the live version did
 * not start (no `liveRunId`: the candidate's trigger matched and the live version's did not). Kept in
 * the tenant's durable queue until the comparison is made; claimed under a lease like a run, so a
 * dead drainer's work is taken over. Operational, never part of a ledger.
 */
export interface ShadowWork {
  readonly tenant: string;
  /** The shadow run's id (`shadowRunIdFor`, or `loneShadowRunIdFor` without a live run): unique per tenant. */
  readonly id: Digest;
  readonly workflowId: string;
  /** The SHADOW version. */
  readonly version: number;
  /** The version the event was routed to: it started `liveRunId`, or (absent) did not start. */
  readonly liveVersion: number;
  readonly liveRunId?: string;
  /** The status the shadow run is judged as: the live version's. */
  readonly judgedAs: 'LIVE' | 'AUTONOMOUS';
  readonly event: EventRecord;
  /** When it was queued, ms since the epoch, on the wall clock (like leases). */
  readonly enqueuedMs: number;
}

/** Shadow work a drainer claimed: it holds the item until `leaseUntil` (ms). */
export interface ClaimedShadowWork extends ShadowWork {
  readonly leaseUntil: number;
  /** Attempts at it that failed so far (each handed back with `failure`). */
  readonly attempts: number;
}

/** An item kept as failed: its last attempt failed, and it is not tried again unless asked. */
export interface ShadowFailure {
  readonly id: string;
  readonly workflowId: string;
  readonly version: number;
  readonly liveRunId?: string;
  readonly attempts: number;
  /** What the last attempt failed with. */
  readonly error: string;
  /** When it was given up on (ms, wall clock). */
  readonly failedMs: number;
}

/** A candidate version's place in the queue's round robin. */
export interface ShadowGroup {
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
}

/**
 * Narrows a claim of shadow work. Items are handed out fairly: each candidate version's oldest
 * first, one per version in turn, starting with the version after `after` (the last one served).
 */
export interface ShadowClaimScope {
  readonly tenant?: string;
  /** Only these items (of `tenant`, then required): what one process queued and drains itself. */
  readonly ids?: readonly string[];
  /** Tenants whose items are not claimed now (at their limit of shadow runs at once). */
  readonly skipTenants?: readonly string[];
  /** Owners whose live leases count as expired (processes known to be gone). */
  readonly takeOver?: readonly string[];
  readonly after?: ShadowGroup;
}

/** The shadow queue's lag: what waits, what is being worked on, and since when the oldest item waits. */
export interface ShadowQueueStatus {
  /** Items no live lease holds: queued, or left by a drainer that stopped (failed items aside). */
  readonly waiting: number;
  /** Items a drainer holds now. */
  readonly running: number;
  /** `enqueuedMs` of the oldest item, waiting or running; absent when none is. */
  readonly oldestMs?: number;
  /** Items kept as failed (not waiting: nobody tries them again unless asked). */
  readonly failed: number;
  /** The most recently failed of them, at most 20, newest first. */
  readonly failures: readonly ShadowFailure[];
  /** Live leases on items, per owner. */
  readonly owners: readonly { readonly owner: string; readonly items: number }[];
}

export interface ShadowQueue {
  /** Queues shadow work on its own (an event no live run was started for); returns how many were new. */
  enqueueShadowWork(items: readonly ShadowWork[]): Promise<number>;
  /**
   * Leases up to `limit` items to `owner` until `now + leaseMs`: those with no lease or one expired
   * before `now`, in the round robin of ShadowClaimScope. One transaction; two claimers never both
   * hold an item.
   */
  claimShadowWork(
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ShadowClaimScope,
  ): Promise<ClaimedShadowWork[]>;
  /** Removes a done item (whoever holds it); false when it was not queued. */
  finishShadowWork(tenant: string, id: string): Promise<boolean>;
  /**
   * Hands an item `owner` holds back, to be claimable again at `retryAt` (ms; now when absent);
   * with `failure`, an attempt failed: it is counted (`attempts`) and its error kept.
   */
  releaseShadowWork(
    tenant: string,
    id: string,
    owner: string,
    retryAt?: number,
    failure?: string,
  ): Promise<boolean>;
  /**
   * Keeps an item `owner` holds as failed (its last attempt failed with `error`, at `at` ms): it is
   * never claimed again, and is reported (`shadowQueueStatus`) until `retryFailedShadowWork`.
   */
  failShadowWork(tenant: string, id: string, owner: string, error: string, at: number): Promise<boolean>;
  /** Puts a tenant's failed items back in the queue, their attempts counted afresh; how many. */
  retryFailedShadowWork(tenant: string): Promise<number>;
  /**
   * The items beside live run `liveRunId` that wait to be tried again (no drainer holds them, none
   * failed) become claimable now: that run has ended. Their ids.
   */
  wakeShadowWork(tenant: string, liveRunId: string): Promise<string[]>;
  /** The queue's lag across the store, or of one tenant, workflow or version. */
  shadowQueueStatus(
    now: number,
    filter?: { tenant?: string; workflowId?: string; version?: number },
  ): Promise<ShadowQueueStatus>;
}
