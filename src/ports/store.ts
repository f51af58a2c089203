/**
 * The Store port: everything the engine keeps durably, behind one contract that every adapter
 * (SQLite, PostgreSQL) binds through `runStoreContract`.
 *
 * Every read and write names its tenant; a run of another tenant is indistinguishable from a run
 * that does not exist. Appends are atomic and take an expected head: a stale head is a
 * `head_conflict`, so two writers can never both append at one seq. The run row and the pending
 * approvals are projections of the ledger, written in the same transaction as the entries.
 *
 * Workers share runs through leases on the run row (`claimRuns`, `renewLeases`, `releaseRun`):
 * a lease only says who should walk a run now; the head check on every append stays the fence
 * that keeps two walkers from both writing at one seq. Lease times are milliseconds since the
 * epoch, taken from the caller (`now`), never read by the engine.
 *
 * For `keel serve`, the store also keeps API keys (only their SHA-256 hashes) and idempotency
 * records (OpenWOP Idempotency Layer 1, one per (tenant, operation, key)); see the interfaces below.
 * For governance, it keeps each tenant's trusted writ keys (public keys only) and revoked writ
 * hashes; neither is ever deleted (a key is retired, a revocation stands).
 *
 * For routing, it keeps the event index: per tenant, `(source, id)` names one event, its first
 * delivery's content hash and the runs its routing chose (none is an answer too), claimed
 * atomically so concurrent deliveries of one event make one set of runs; redeliveries with other
 * content are recorded as conflicts, and a rollout's trigger disagreements are counted.
 */

import type { Digest } from '../core/canonical/index.ts';
import type { EventRecord, Head, RunMode, RunStatus, SplitEntry, StoredEntry } from '../core/ledger/index.ts';
import type { Comparison, PromotionRecord, RolloutState } from '../core/lifecycle/index.ts';
import type { ContentField, EventContent } from '../core/run/index.ts';
import type { WorkflowSpec, WorkflowStatus } from '../core/spec/index.ts';
import type { WritBudget } from '../core/writs/index.ts';
import type { CheckpointStore } from './checkpoint-store.ts';

export interface VersionRecord {
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  readonly spec: WorkflowSpec;
  readonly status: WorkflowStatus;
  readonly publishedAt: string;
  readonly publishedBy: string;
}

/** A lifecycle record of a workflow, hash-chained per workflow (core/lifecycle/promotion-chain.ts). */
export type Promotion = PromotionRecord;

/** A lifecycle record about to be appended to its workflow's chain: the store computes the hashes. */
export type NewPromotion = Omit<PromotionRecord, 'prevHash' | 'hash'>;

export interface RunRecord {
  readonly runId: string;
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  readonly status: RunStatus;
  readonly head: Head;
  readonly eventId: string;
  readonly eventType: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** A simulated run's mode (its root's `mode`); absent for a live run. */
  readonly mode?: RunMode;
  /** A shadow run's live run (its root's `shadowOf`). */
  readonly shadowOf?: string;
}

export interface PendingApproval {
  readonly tenant: string;
  readonly runId: string;
  readonly proposalId: Digest;
  readonly step: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly reason: string;
  readonly channel: string;
  readonly requestedAt: string;
  /**
   * Set (by `approvals.list`, never by a store) when the run does not verify: what failed. The
   * other fields are then empty (only the run id and when it was asked are kept), since neither the
   * row nor the ledger can be trusted, and deciding it is refused.
   */
  readonly invalid?: { readonly code: string; readonly seq: number; readonly message: string };
}

/** Creating a run: its first entries and the identity the run row is indexed by. */
export interface NewRun {
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  readonly eventId: string;
  readonly eventType: string;
  readonly mode?: RunMode;
  readonly shadowOf?: string;
}

/**
 * Who may walk a run, changed with an append in the same transaction: `hold` leases the run to
 * `owner` for `ms` from the store's clock (an inline walk no worker should claim meanwhile);
 * `release` clears the lease and, if the run is running, wakes the workers to claim it.
 */
export type LeaseChange =
  | { readonly op: 'hold'; readonly owner: string; readonly ms: number }
  | { readonly op: 'release' };

export interface AppendRequest {
  readonly tenant: string;
  readonly runId: string;
  /** The head the caller built on; null when the entries start a new run at seq 0. */
  readonly expectedHead: Head | null;
  readonly entries: readonly StoredEntry[];
  /** The run's status after these entries (the run row is a projection kept in step). */
  readonly status: RunStatus;
  /** Required when expectedHead is null. */
  readonly create?: NewRun;
  /** Pending approvals opened or closed by these entries. */
  readonly openApproval?: PendingApproval;
  readonly closeApproval?: Digest;
  /** A change of the run's lease, applied only if the append is. */
  readonly lease?: LeaseChange;
  /** A reservation from (or a return to) the run's writ budgets, applied only with the append. */
  readonly budget?: BudgetChange;
  /**
   * Shadow work queued with the append, in its transaction (a live run's root queues its SHADOW
   * versions' comparisons): applied only if the append is; an item already queued is kept as is.
   */
  readonly shadowWork?: readonly ShadowWork[];
}

/** A run a worker claimed: it holds the lease until `leaseUntil` (ms) unless it renews it. */
export interface ClaimedRun {
  readonly tenant: string;
  readonly runId: string;
  readonly leaseUntil: number;
  /** The run's ledger as of the claim (in seq order), so the claimer starts walking without a read. */
  readonly entries: readonly StoredEntry[];
}

/**
 * Narrows a claim: only one tenant's runs, or one run, and leases that count as expired because
 * their holders are known to be gone (a process on this host that no longer exists, or the
 * claimer itself from before a crash). Without a scope a claim takes any claimable run.
 */
export interface ClaimScope {
  readonly tenant?: string;
  /** One run (of `tenant`, which is then required). */
  readonly runId?: string;
  /** Owners whose live leases count as expired. */
  readonly takeOver?: readonly string[];
}

/** A worker process as it registers itself; `seenAt` is its last heartbeat (ms). */
export interface WorkerRecord {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly seenAt: number;
  readonly leaseMs: number;
}

/** What `keel status` shows: across all tenants, an operator's view of the workers and the queue. */
export interface WorkerStatus {
  readonly now: number;
  readonly workers: readonly WorkerRecord[];
  /** Live leases on running runs, per owner. */
  readonly leases: readonly { readonly owner: string; readonly runs: number }[];
  /** Runs a worker could claim now: running, with no lease or an expired one. */
  readonly queueDepth: number;
  readonly oldestRunnable?: { readonly tenant: string; readonly runId: string; readonly createdAt: string };
  /** Runs suspended as outcome_unknown, waiting for reconciliation. */
  readonly suspended: number;
}

export interface RunFilter {
  readonly status?: RunStatus;
  readonly workflowId?: string;
  /** Runs of one version (of workflowId; alone, that version of every workflow). */
  readonly version?: number;
  /** `live`: live runs only; `test` or `shadow`: only simulated runs of that mode. Absent: all. */
  readonly mode?: RunMode | 'live';
  /**
   * Runs created at or after this time, and before `until`: each in the clock's text
   * (`Date.toISOString`, as `instantBound` gives it), which the stores compare byte by byte.
   */
  readonly since?: string;
  readonly until?: string;
  readonly limit?: number;
  /** Opaque cursor from a previous page's `next`. */
  readonly cursor?: string;
}

export interface RunPage {
  readonly runs: readonly RunRecord[];
  readonly next?: string;
}

/** What `countRuns` counts: a workflow's runs (of one version), of one mode, created since a time. */
export interface RunCount {
  /** Absent: every workflow of the tenant. */
  readonly workflowId?: string;
  readonly version?: number;
  readonly mode?: RunMode | 'live';
  readonly status?: RunStatus;
  /** ISO time; runs created at or after it. */
  readonly since?: string;
  /** ISO time, in the clock's text like `since`; runs created before it. */
  readonly until?: string;
}

/** What `tallyLiveRuns` counts: the live runs of one version created in a window. */
export interface LiveRunWindow {
  readonly workflowId: string;
  readonly version: number;
  /** ISO time, in the clock's text like RunCount's: runs created at or after it. */
  readonly since: string;
  /** How many run ids to give as examples of each list (1..500). */
  readonly examples: number;
}

/**
 * Every live run of a version in a window, counted in the store (never the newest N): finished
 * runs the routing started, or started by name, while the version was LIVE or AUTONOMOUS — not
 * forks, re-runs or simulated runs — and the approvals people resolved in them.
 */
export interface LiveRunTally {
  readonly runs: number;
  readonly approved: number;
  readonly denied: number;
  /** The newest `examples` of those runs, newest first. */
  readonly runIds: readonly string[];
  /** The newest `examples` of those runs where a person denied an approval, newest first. */
  readonly deniedRunIds: readonly string[];
}

/**
 * What the audit query selects: ledger entries across one tenant's runs. Every field narrows
 * exactly (byte-equal text); absent fields select everything.
 */
export interface EntryFilter {
  readonly runId?: string;
  /** Entries of runs of this workflow. */
  readonly workflowId?: string;
  /** Entries of this kind (`step.refused`, ...). */
  readonly kind?: string;
  /** Entries whose payload names this actor as who acted (core/ledger/entry-actor.ts, `namesActor`). */
  readonly actor?: string;
  /** `step.refused` and `run.finished` entries with this `code` (`hasCode`). */
  readonly code?: string;
  /**
   * Entries written at or after `since`, and before `until`: each in the clock's text
   * (`instantBound`), compared byte by byte with the entry's `at`.
   */
  readonly since?: string;
  readonly until?: string;
}

/**
 * A page of the audit query. Entries come in (at, runId, seq) order, ascending, by byte order of
 * `at` and run id; `cursor` continues after the last entry of the page that returned it, with the
 * same filters.
 */
export interface EntryQuery extends EntryFilter {
  /** 1..500, default 100. */
  readonly limit?: number;
  readonly cursor?: string;
}

/** A ledger entry as stored, with the workflow and pinned version of its run. */
export interface RunEntry extends StoredEntry {
  readonly workflowId: string;
  readonly version: number;
}

export interface EntryPage {
  readonly entries: readonly RunEntry[];
  /** Present when more entries may match: the cursor of the next page. */
  readonly next?: string;
}

/** A shadow run's comparison with its live run, kept once both ended (core/lifecycle/compare-runs.ts). */
export interface StoredComparison {
  readonly tenant: string;
  readonly workflowId: string;
  /** The shadow run's id; where the candidate would not start, the id its shadow run would have had. */
  readonly shadowRunId: string;
  /** Absent where the live version did not start on the event (and the candidate did). */
  readonly liveRunId?: string;
  readonly shadowVersion: number;
  readonly liveVersion: number;
  readonly agree: boolean;
  readonly comparison: Comparison;
  readonly createdAt: string;
}

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

/** A shadow run not started because the tenant had as many running as it may (counted, never queued). */
export interface ShadowSkip {
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly liveRunId: string;
  readonly reason: string;
  readonly at: string;
}

/** A workflow's rollout as stored, with the revision an update must name. */
export interface StoredRollout {
  readonly state: RolloutState;
  readonly rev: number;
}

/**
 * Lifecycle records appended in one transaction, with the version statuses they change and the
 * rollout state they leave. Each status change applies only if the version is still `from`, and
 * the rollout only if its revision is still `expectedRev` (null: none stored); otherwise nothing
 * is written (head_conflict), so two people promoting at once never both succeed.
 */
export interface LifecycleChange {
  readonly tenant: string;
  readonly workflowId: string;
  readonly records: readonly NewPromotion[];
  readonly rollout?: { readonly state: RolloutState; readonly expectedRev: number | null };
}

export interface StoreStats {
  /** Durable transactions committed since the store was opened (one fsync each in SQLite FULL mode). */
  readonly commits: number;
  readonly entriesAppended: number;
}

/** An API key as stored: never the key itself, only the SHA-256 (hex) of the full presented key. */
export interface ApiKeyRecord {
  readonly keyId: string;
  readonly tenant: string;
  /** Who acts when the key is presented (recorded as the actor of what the request does). */
  readonly subject: string;
  readonly hash: string;
  /** ISO-8601 time. */
  readonly createdAt: string;
  /** `human`: a person (may promote and override gates); `service`: an automation. */
  readonly kind: PrincipalKind;
}

/** Who presents an API key: a person, or an automation (which may not promote). */
export type PrincipalKind = 'human' | 'service';

/** What a key lookup or listing shows: never the hash, never the key. */
export interface ApiKeyInfo {
  readonly keyId: string;
  readonly tenant: string;
  readonly subject: string;
  readonly createdAt: string;
  readonly kind: PrincipalKind;
  /** ISO-8601 time the key was revoked; a revoked key resolves to nothing. */
  readonly revokedAt?: string;
}

/** Idempotency records live this long from their first claim (ms); older ones count as absent. */
export const IDEMPOTENCY_TTL_MS = 86_400_000;

/** Names one idempotency record: the same key in two tenants (or two operations) is two records. */
export interface IdempotencyRef {
  readonly tenant: string;
  /** What the key guards, e.g. `POST /v1/runs`. */
  readonly operation: string;
  /** The client's Idempotency-Key. */
  readonly key: string;
}

export interface IdempotencyClaimRequest extends IdempotencyRef {
  /** A digest of the request the key was sent with; a different digest under the same key is a mismatch. */
  readonly digest: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** How long the claimer may take before another request with the same digest may take over (ms). */
  readonly leaseMs: number;
}

/**
 * The cached response of a finished request. `body` is text, kept and returned verbatim (the
 * server stores the JSON text of the body it sent); `headers` are the few response headers worth
 * replaying (e.g. `location`), never credentials.
 */
export interface IdempotencyResponse {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * `claimed`: the caller now holds the record (new, an expired lease taken over, or one older than
 * the TTL replaced) and must finish or release it. `in_flight`: another request with the same
 * digest holds it. `mismatch`: the record was made by a request with another digest. `done`: the
 * same request finished before; here is its response.
 */
export type IdempotencyClaim =
  | { readonly state: 'claimed' }
  | { readonly state: 'in_flight' }
  | { readonly state: 'mismatch' }
  | ({ readonly state: 'done' } & IdempotencyResponse);

/** A public key a tenant trusts to sign its writs, as stored: the PEM, never a private key. */
export interface TrustedKeyRecord {
  readonly tenant: string;
  /** `sha256:` of the key's SPKI DER (`keyIdOf`), the writ's `issuer`. */
  readonly keyId: Digest;
  /** The Ed25519 public key, SPKI PEM. */
  readonly publicKeyPem: string;
  readonly addedBy: string;
  /** ISO-8601 time. */
  readonly addedAt: string;
  /** ISO-8601 time the key was retired; a retired key signs nothing from then on. */
  readonly retiredAt?: string;
}

/** A writ revoked in a tenant: it and every writ derived from it refuse from then on. */
export interface WritRevocation {
  readonly tenant: string;
  /** `writHash` of the revoked writ. */
  readonly hash: Digest;
  readonly by: string;
  /** ISO-8601 time. */
  readonly at: string;
  readonly reason?: string;
}

// --- Writ budgets shared by every run under a writ (docs/governance.md, "Budgets across runs") ---

/**
 * A change of the budgets of every writ of a chain, made in the same transaction as the append
 * that carries it. `writ` is the hash a run's root names (its chain is stored under it,
 * `putWritChain`): the change applies to that writ and to each of its ancestors. A positive
 * `reserve` must fit within every writ's limit after what its runs already reserved, or the whole
 * append is refused — `writ_refused` with `details.code` `writ_budget_exhausted`, naming the writ
 * that ran out (`details.writ`), its `used` and `limit`, and what was `asked` — and nothing is
 * written. `release` gives back what a run reserved and did not use (never below zero).
 */
export interface BudgetChange {
  readonly writ: Digest;
  readonly reserve?: WritBudget;
  readonly release?: WritBudget;
}

/** One writ of a chain with its shared budget: its limit and what runs under it reserved. */
export interface WritBudgetUsage {
  readonly hash: Digest;
  /** The writ body's `id`. */
  readonly id: string;
  readonly limit: WritBudget;
  /** Reserved by every run under this writ or a writ derived from it (used, or held for use). */
  readonly used: WritBudget;
}

/** The `details` of a `writ_refused` error whose `code` is `writ_budget_exhausted`. */
export interface BudgetRefusalDetails {
  readonly code: 'writ_budget_exhausted';
  /** The writ of the chain that ran out (the chain's first, from the root, that would overspend). */
  readonly writ: Digest;
  readonly id: string;
  readonly used: WritBudget;
  readonly limit: WritBudget;
  readonly asked: WritBudget;
}

// --- The event index (docs/http.md, "Events"; DESIGN invariant 15) ---

/** A run an event's routing chose: the version, its id (content-derived), and the rollout's split. */
export interface RoutedRun {
  readonly workflowId: string;
  readonly version: number;
  readonly runId: string;
  readonly split?: SplitEntry;
}

/** An event's first delivery as the index keeps it: its name, its content and the runs it chose. */
export interface DeliveredEvent extends EventContent {
  readonly tenant: string;
  readonly source: string;
  readonly eventId: string;
  /** The runs its routing chose, in routing order; empty when no workflow took it. */
  readonly runs: readonly RoutedRun[];
  /** ISO-8601 time of the first delivery. */
  readonly deliveredAt: string;
}

/**
 * During a rollout, an event the two LIVE versions' triggers disagree on: the version its bucket
 * chose, and the one that took it (null: none did). Kept once per event and workflow, with the
 * rollout it fell in: its two versions and its `startedAt` (which names it).
 */
export interface TriggerDisagreement {
  readonly tenant: string;
  readonly workflowId: string;
  readonly source: string;
  readonly eventId: string;
  readonly from: number;
  readonly to: number;
  /** The rollout's `startedAt`. */
  readonly startedAt: string;
  readonly chosen: number;
  readonly taken: number | null;
  readonly at: string;
}

/** `first`: this delivery named the event first and its runs stand; `again`: here is the first delivery. */
export type EventClaim =
  | { readonly state: 'first' }
  | { readonly state: 'again'; readonly first: DeliveredEvent };

/** A redelivery with other content, as recorded: once per distinct content, counted. */
export interface EventConflict {
  readonly tenant: string;
  readonly source: string;
  readonly eventId: string;
  /** The content hash of the first delivery, and of the conflicting one. */
  readonly firstHash: string;
  readonly eventHash: string;
  readonly fields: readonly ContentField[];
  /** ISO-8601 times this content was first and last delivered, and how often. */
  readonly firstAt: string;
  readonly lastAt: string;
  readonly count: number;
}

export type NewEventConflict = Omit<EventConflict, 'firstAt' | 'lastAt' | 'count'> & { readonly at: string };

export interface Store extends CheckpointStore {
  /**
   * Atomically appends entries; resolves once they are durable. Throws head_conflict on a stale
   * head, and writ_refused (writ_budget_exhausted) when its `budget` reservation does not fit.
   */
  append(req: AppendRequest): Promise<Head>;
  getRun(tenant: string, runId: string): Promise<RunRecord | undefined>;
  listRuns(tenant: string, filter?: RunFilter): Promise<RunPage>;
  /**
   * Entries in seq order from `fromSeq` (default 0), at most `limit` of them (default all), so long
   * ledgers can be read in pages. Empty when the run is unknown to this tenant.
   */
  readEntries(tenant: string, runId: string, fromSeq?: number, limit?: number): Promise<StoredEntry[]>;
  listPendingApprovals(tenant: string, runId?: string): Promise<PendingApproval[]>;
  /**
   * The audit query: entries of the tenant's runs that match every field of `q`, a page at a time
   * in (at, runId, seq) order (EntryQuery). A cursor that no page returned is a usage error naming
   * `cursor`; another tenant's run id matches nothing.
   */
  queryEntries(tenant: string, q: EntryQuery): Promise<EntryPage>;
  /** How many of the tenant's entries match `f`, by kind (kinds with none are absent). */
  countEntries(tenant: string, f: EntryFilter): Promise<Record<string, number>>;

  /** Stores a version; publishing identical content again is a no-op, different content a version_immutable error. */
  putVersion(rec: VersionRecord): Promise<{ created: boolean; record: VersionRecord }>;
  /** A version, or the newest version when `version` is omitted. */
  getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined>;
  listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]>;
  /** Changes one version's status with its lifecycle record (`recordLifecycle` with one record). */
  setVersionStatus(p: NewPromotion): Promise<void>;
  /** The workflow's lifecycle records in chain order, hashes included. */
  listPromotions(tenant: string, workflowId: string): Promise<Promotion[]>;
  /** Appends lifecycle records and applies what they change, atomically (LifecycleChange). */
  recordLifecycle(change: LifecycleChange): Promise<Promotion[]>;
  /** The workflow's rollout, if one was ever started (active, completed or rolled back). */
  getRollout(tenant: string, workflowId: string): Promise<StoredRollout | undefined>;
  /** How the matching runs stand: a count per status (statuses with none are absent). */
  countRuns(tenant: string, c: RunCount): Promise<Partial<Record<RunStatus, number>>>;
  /** Counts a version's live runs in a window and the approvals people resolved in them (LiveRunTally). */
  tallyLiveRuns(tenant: string, w: LiveRunWindow): Promise<LiveRunTally>;
  /** Keeps a comparison once: false when the shadow run has one already (it is never replaced). */
  putComparison(c: StoredComparison): Promise<boolean>;
  /** Comparisons of a shadow version, oldest first, created at or after `since`. */
  listComparisons(
    tenant: string,
    workflowId: string,
    shadowVersion: number,
    o?: { since?: string },
  ): Promise<StoredComparison[]>;
  /**
   * Counts a shadow run skipped at the concurrency limit (once per live run and version). Keel no
   * longer skips (shadow work waits in the queue); the records of older stores are still read.
   */
  recordShadowSkip(s: ShadowSkip): Promise<void>;
  /**
   * Skipped shadow runs of a version (since a time), per version of the live run each was skipped
   * beside (null when that run is no longer in the store), ascending by live version.
   */
  shadowSkips(
    tenant: string,
    workflowId: string,
    version: number,
    since?: string,
  ): Promise<{ liveVersion: number | null; count: number }[]>;

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

  /**
   * Leases up to `limit` claimable runs (running, no lease or one expired before `now`) to `owner`
   * until `now + leaseMs`, oldest first, skipping rows another claim holds; one transaction, which
   * also returns each claimed run's ledger. A `scope` narrows what is claimed (ClaimScope).
   */
  claimRuns(
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ClaimScope,
  ): Promise<ClaimedRun[]>;
  /** Extends the leases `owner` still holds among `runIds` and stamps its heartbeat; returns those. */
  renewLeases(owner: string, runIds: readonly string[], leaseMs: number, now: number): Promise<string[]>;
  /** Clears `owner`'s lease on a run (false if it no longer held it); wakes workers if the run is running. */
  releaseRun(owner: string, runId: string): Promise<boolean>;
  /** Registers (or re-registers) a worker; a usage error when a live worker of another process has the id. */
  registerWorker(w: Omit<WorkerRecord, 'seenAt'>, now: number): Promise<void>;
  unregisterWorker(id: string): Promise<void>;
  workerStatus(now: number): Promise<WorkerStatus>;
  /**
   * Calls `listener` when runs may have become claimable (PostgreSQL: LISTEN on a dedicated
   * connection, for every process; SQLite: appends through this handle only). A hint, never a
   * guarantee: workers still poll. Resolves to a function that stops listening.
   */
  onRunnable(listener: () => void): Promise<() => Promise<void>>;

  /** Stores a new API key (its hash); a key id or hash already present is an internal error. */
  putApiKey(rec: ApiKeyRecord): Promise<void>;
  /**
   * The key whose hash this is, revoked or not. The one read not scoped by tenant: presenting a key
   * is how its tenant is found.
   */
  findApiKey(hash: string): Promise<ApiKeyInfo | undefined>;
  /** The tenant's keys, revoked ones included, oldest first. */
  listApiKeys(tenant: string): Promise<ApiKeyInfo[]>;
  /** Marks a key revoked at `at` (revoking twice keeps the first time); false when the tenant has no such key. */
  revokeApiKey(tenant: string, keyId: string, at: string): Promise<boolean>;

  /** Atomically claims an idempotency record, or reports who holds it or what it answered (see IdempotencyClaim). */
  claimIdempotency(req: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  /** Stores the response of the in-flight record; false when there is none (released, expired or already done). */
  finishIdempotency(req: IdempotencyRef & IdempotencyResponse): Promise<boolean>;
  /** Deletes the in-flight record, so the outcome is not cached (5xx, 429, validation errors); false when there is none. */
  releaseIdempotency(ref: IdempotencyRef): Promise<boolean>;

  /**
   * Trusts a public key for a tenant's writs. Adding a key already present (retired or not) changes
   * nothing and returns the stored record with `created: false`: a retired key stays retired.
   */
  addTrustedKey(
    rec: Omit<TrustedKeyRecord, 'retiredAt'>,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }>;
  /** The tenant's trusted keys, retired ones included, oldest first. */
  listTrustedKeys(tenant: string): Promise<TrustedKeyRecord[]>;
  /** Marks a key retired at `at` (retiring twice keeps the first time); false when the tenant has no such key. */
  retireTrustedKey(tenant: string, keyId: string, at: string): Promise<boolean>;
  /**
   * Revokes a writ of a tenant by its hash. Revoking it again changes nothing and returns the first
   * revocation with `created: false`.
   */
  revokeWrit(rec: WritRevocation): Promise<{ created: boolean; record: WritRevocation }>;
  /** The tenant's revoked writs, oldest first. */
  listRevokedWrits(tenant: string): Promise<WritRevocation[]>;
  /**
   * Stores a writ chain (root first, its canonical JSON text) under the hash of its last writ, the
   * hash a run's root names. Content-addressed: storing a hash already present changes nothing.
   */
  putWritChain(tenant: string, hash: Digest, chain: string): Promise<void>;
  /** The chain stored under `hash` for the tenant, as stored; undefined when there is none. */
  getWritChain(tenant: string, hash: Digest): Promise<string | undefined>;

  /**
   * The tenant's key for hashing secret values (32 bytes): the stored one, or `candidate`, stored
   * now, when the tenant has none yet. It never changes once stored and never enters a ledger.
   */
  secretKey(tenant: string, candidate: Uint8Array): Promise<Uint8Array>;

  /**
   * The shared budget of each writ of the chain stored under `hash` (root first): its limit and
   * what runs under it reserved. Undefined when the tenant has no chain under that hash.
   */
  readWritBudgets(tenant: string, hash: Digest): Promise<WritBudgetUsage[] | undefined>;

  /**
   * Names an event in its tenant: stores `d` (with `disagreements`, in the same transaction) unless
   * `(tenant, source, eventId)` is stored already, in which case nothing is written and the stored
   * first delivery is returned, whatever its content. Atomic across handles and processes: of
   * concurrent claims of one name exactly one is `first`. A claim that names runs may be committed
   * without waiting for its own flush to disk (the caller commits those runs next, durably, and
   * that makes the claim durable too); one that names none is durable when it resolves.
   */
  claimEvent(d: DeliveredEvent, disagreements?: readonly TriggerDisagreement[]): Promise<EventClaim>;
  /** The first delivery of the tenant's event `(source, eventId)`, if it was delivered. */
  getDeliveredEvent(tenant: string, source: string, eventId: string): Promise<DeliveredEvent | undefined>;
  /** Records a conflicting redelivery: a new content once, the same content again counted (last time kept). */
  recordEventConflict(c: NewEventConflict): Promise<EventConflict>;
  /** The tenant's conflicts, the most recently delivered first; narrowed to a source and an event id. */
  listEventConflicts(
    tenant: string,
    q?: { readonly source?: string; readonly eventId?: string; readonly limit?: number },
  ): Promise<EventConflict[]>;
  /**
   * The trigger disagreements of a workflow's rollout (to version `to`, started at `startedAt`),
   * counted by the version the bucket chose and the one that took the event.
   */
  countTriggerDisagreements(
    tenant: string,
    workflowId: string,
    o: { readonly to: number; readonly startedAt: string },
  ): Promise<{ readonly chosen: number; readonly taken: number | null; readonly count: number }[]>;

  stats(): StoreStats;
  close(): Promise<void>;

  // ---- Run append notifications (OpenWOP event streams) -------------------------------------

  /**
   * Calls `listener` after entries appended to a run are committed: with the run's id, or with no
   * id when runs may have changed that the store cannot name (SQLite: another process committed;
   * PostgreSQL: the listening connection was re-established). A hint that a head may have moved,
   * never a guarantee and never data: listeners re-read what they need, and one that must not
   * miss anything also polls, slowly. PostgreSQL: NOTIFY in the append's own transaction, heard by
   * every process on the database (`?notify=off`: never called); SQLite: this handle's appends at
   * once, other processes' within about 100 ms. Resolves to a function that stops listening.
   */
  onAppended(listener: (runId?: string) => void): Promise<() => Promise<void>>;
}
