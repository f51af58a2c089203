/**
 * The `Keel` interface: what `createKeel` returns, declared here rather than inferred from its
 * closure, so the library's public surface (and its declaration file) changes only when this file
 * does. Every handle is tenant-scoped. `store`, `tools` and `engine` are Keel's own parts, there
 * for its server, CLI and workers; a library user needs the handles. The check at the end makes
 * the compiler refuse a `createKeel` that no longer returns a Keel.
 */
import type { DraftCatalog, EventShape, ReadBack } from '../core/authoring/index.ts';
import type { Digest } from '../core/canonical/index.ts';
import type { Entry, StoredEntry, VerifyResult } from '../core/ledger/index.ts';
import type {
  ChainResult,
  GateReport,
  RolloutState,
  RolloutVerdict,
  SpecDiff,
} from '../core/lifecycle/index.ts';
import type { WorkflowSpec } from '../core/spec/index.ts';
import type {
  Engine,
  ReconcileRequest,
  ReplayResult,
  RunSummary,
  ToolRegistry,
  WalkMode,
} from '../engine/index.ts';
import type {
  ApiKeyInfo,
  DeliveredEvent,
  EventConflict,
  IdempotencyClaim,
  IdempotencyRef,
  IdempotencyResponse,
  PrincipalKind,
  Promotion,
  RunFilter,
  RunPage,
  RunRecord,
  ShadowFailure,
  Store,
  TrustedKeyRecord,
  VersionRecord,
  WritBudgetUsage,
  WritRevocation,
} from '../ports/index.ts';
import type { Worker, WorkerOptions } from '../worker/index.ts';
import type { ApiKeyIdentity, CreatedApiKey } from './api-keys.ts';
import type { AuditHandle } from './audit.ts';
import type { IdempotencyClaimInput } from './idempotency.ts';
import type {
  createKeel,
  EmitOptions,
  EmitResult,
  HistoryLine,
  PendingApprovalItem,
  PublishOptions,
  RunCountFilter,
  RunCounts,
  StartOptions,
} from './keel.ts';
import type { Principal, PromoteOptions, RolloutOptions, RolloutStatus } from './lifecycle/lifecycle.ts';
import type { ReplayGateReport } from './lifecycle/replay-gate.ts';
import type { ShadowReport } from './lifecycle/shadow-report.ts';
import type { TestReport } from './lifecycle/test-runs.ts';
import type { KeelMetrics } from './metrics.ts';
import type { TraceExporter } from './trace-export.ts';
import type { WritInspection } from './writ-trust.ts';

/** A published version, and whether this call created it (false: the same content was there). */
export interface Published {
  readonly created: boolean;
  readonly record: VersionRecord;
}

export interface WorkflowsHandle {
  /** Parses, validates (tools included) and hashes a spec without storing it. */
  validate(text: string, file: string): { spec: WorkflowSpec; specHash: Digest };
  /** Publishes a spec (YAML or JSON text) as DRAFT; the same id and version with other content is refused. */
  publish(tenant: string, text: string, file: string, by: string): Promise<Published>;
  /** Publishes a spec given as a value (as the HTTP API receives it). */
  publishObject(tenant: string, value: unknown, by: string, o?: PublishOptions): Promise<Published>;
  /** Checks a plan module (`*.plan.ts`) for determinism, evaluates it in the sandbox and validates its spec. */
  validatePlan(path: string): Promise<{ spec: WorkflowSpec; specHash: Digest }>;
  /** Publishes the spec a plan module yields. */
  publishPlan(tenant: string, path: string, by: string): Promise<Published>;
  /** Moves a version (the newest unless `version` is given) to another status, as `by`. */
  /**
   * Moves a version one step up (only when its gate is met, or `override` gives why a person
   * promotes without it) or any step down; `principal: 'service'` is refused. docs/lifecycle.md.
   */
  promote(
    tenant: string,
    workflowId: string,
    to: string,
    by: string,
    version?: number,
    o?: { override?: string; principal?: PrincipalKind },
  ): Promise<Promotion>;
  list(tenant: string, workflowId?: string): Promise<VersionRecord[]>;
  get(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined>;
  promotions(tenant: string, workflowId: string): Promise<Promotion[]>;
  /** `spec` read back in plain words (keel explain) over the tools and the tenant's current policy. */
  explain(tenant: string, spec: WorkflowSpec): ReadBack;
  /** What a draft for `tenant` is compiled and read back against: the tools, `events`, the policy. */
  draftCatalog(tenant: string, events?: readonly EventShape[]): DraftCatalog;
}

export interface EventsHandle {
  /**
   * Delivers an event, named by `(source, id)` (`o.channel` is its source when it gives none). Its
   * first delivery starts one run per workflow whose LIVE or AUTONOMOUS version the event triggers
   * (during a rollout, the version the event's bucket chooses); SHADOW versions run beside it,
   * simulated. A redelivery with the same content answers those runs (`redelivery: true`); one
   * with other content throws event_conflict, starts nothing and is recorded (`conflicts`).
   */
  emit(tenant: string, value: unknown, o?: EmitOptions): Promise<EmitResult>;
  /** The first delivery of the event `(source, id)`: its content hash and the runs it chose. */
  delivered(tenant: string, source: string, eventId: string): Promise<DeliveredEvent | undefined>;
  /** Redeliveries refused as event_conflict, the most recent first (one per distinct content, counted). */
  conflicts(
    tenant: string,
    q?: { source?: string; eventId?: string; limit?: number },
  ): Promise<EventConflict[]>;
}

export interface RunsHandle {
  /** The run; not_found when the tenant has no such run. */
  get(tenant: string, runId: string): Promise<RunRecord>;
  /**
   * Starts a run of one workflow directly, whatever its status; the newest version unless
   * `version` is given. A version not yet shown to behave (DRAFT, TESTING, SHADOW) runs simulated
   * (`simulated: true`: a test run named `run`, no write or external tool acts, nobody is asked)
   * unless `live: true` asks for its effects.
   */
  start(
    tenant: string,
    workflowId: string,
    event: unknown,
    o?: StartOptions & { version?: number; live?: boolean },
  ): Promise<RunSummary & { created: boolean; simulated?: true }>;
  /** Newest first, a page at a time; `since` (inclusive) and `until` (exclusive) bound the creation time. */
  list(tenant: string, filter?: RunFilter): Promise<RunPage>;
  /** The tenant's runs by status (every status, 0 where none), and their total; one query. */
  counts(tenant: string, filter?: RunCountFilter): Promise<RunCounts>;
  /** The run's ledger, decoded. */
  entries(tenant: string, runId: string): Promise<Entry[]>;
  /** The run's ledger as stored (the exact bytes that were hashed). */
  storedEntries(tenant: string, runId: string): Promise<StoredEntry[]>;
  /** The ledger in plain language, one line per entry. */
  history(tenant: string, runId: string): Promise<HistoryLine[]>;
  /** Integrity of the stored ledger, its agreement with the run row and, with `engine`, the engine version. */
  verify(tenant: string, runId: string, o?: { engine?: string }): Promise<VerifyResult>;
  /** Walks a run on from its ledger head after a crash (crash recovery). */
  recover(tenant: string, runId: string): Promise<RunSummary>;
  /** Settles a step suspended as outcome_unknown with what a person found out, then walks on. */
  reconcile(tenant: string, runId: string, r: ReconcileRequest & { walk?: WalkMode }): Promise<RunSummary>;
  cancel(tenant: string, runId: string, c: { by: string; reason?: string }): Promise<RunSummary>;
  /** Holds a running run at its next step boundary; no step starts until `resume`. */
  pause(tenant: string, runId: string, c: { by: string; reason?: string }): Promise<RunSummary>;
  /** Resumes a paused run, walking on here or leaving it to a worker (`walk: 'enqueue'`). */
  resume(tenant: string, runId: string, c: { by: string; walk?: WalkMode }): Promise<RunSummary>;
  /** Re-executes the run from its own ledger alone and compares. */
  replay(tenant: string, runId: string): Promise<ReplayResult>;
  /** A new run inheriting the entries before `fromSeq`: `replay` serves the record, `branch` runs live. */
  fork(
    tenant: string,
    runId: string,
    o: { fromSeq: number; mode: string; event?: unknown; version?: number },
  ): Promise<RunSummary & { created: boolean; forkOf: string; fromSeq: number; mode: string }>;
  /** A new live attempt linked by attemptOf; the original is untouched. */
  rerun(tenant: string, runId: string): Promise<RunSummary & { created: boolean; attemptOf: string }>;
}

export interface ApprovalsHandle {
  /** Pending approvals from the runs' ledgers, oldest request first (of one run with `runId`). */
  list(tenant: string, runId?: string): Promise<PendingApprovalItem[]>;
  approve(
    tenant: string,
    runId: string,
    by: string,
    note?: string,
    o?: { walk?: WalkMode },
  ): Promise<RunSummary>;
  deny(
    tenant: string,
    runId: string,
    by: string,
    note?: string,
    o?: { walk?: WalkMode },
  ): Promise<RunSummary>;
}

/** Bearer API keys for the HTTP API: stored hashed, shown once. */
export interface ApiKeysHandle {
  /** A `service` key unless `kind` is `human` (a person's: may promote and override gates). */
  create(tenant: string, subject?: string, kind?: PrincipalKind): Promise<CreatedApiKey>;
  resolve(presented: string): Promise<ApiKeyIdentity | undefined>;
  list(tenant: string): Promise<ApiKeyInfo[]>;
  revoke(tenant: string, keyId: string): Promise<void>;
}

/** Stored trusted writ keys, writ revocations, and inspecting a writ for a tenant. */
export interface WritsHandle {
  trust(
    tenant: string,
    publicKeyPem: string,
    by: string,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }>;
  trusted(tenant: string): Promise<TrustedKeyRecord[]>;
  untrust(tenant: string, keyId: string): Promise<TrustedKeyRecord>;
  revoke(
    tenant: string,
    target: string | unknown,
    by: string,
    reason?: string,
  ): Promise<{ created: boolean; record: WritRevocation }>;
  revoked(tenant: string): Promise<WritRevocation[]>;
  /**
   * The budget of each writ of a chain (root first), shared by every run under it: its limit and
   * what runs reserved from it. By the writ's hash, or the presented writ (its last link);
   * not_found when no run here was ever started under it.
   */
  budgets(tenant: string, target: string | unknown): Promise<WritBudgetUsage[]>;
  inspect(tenant: string, value: unknown): Promise<WritInspection>;
}

/** Idempotency records of HTTP requests (`Idempotency-Key`). */
export interface IdempotencyHandle {
  claim(req: IdempotencyClaimInput): Promise<IdempotencyClaim>;
  finish(ref: IdempotencyRef, response: IdempotencyResponse): Promise<boolean>;
  release(ref: IdempotencyRef): Promise<boolean>;
}

/** What a caller of `keel.worker` chooses; Keel supplies its engine, store, clock and lease bookkeeping. */
export type WorkerHandleOptions = Partial<
  Omit<WorkerOptions, 'engine' | 'store' | 'clock' | 'goneOwners'>
> & {
  /** Names the worker's lease owner (`worker` by default). */
  role?: string;
};

export interface Keel {
  /** The store Keel runs on; `close` closes it. */
  readonly store: Store;
  /** Keel's core tools and the configured ones. */
  readonly tools: ToolRegistry;
  /** The engine, for Keel's own server and workers; not a stable interface. */
  readonly engine: Engine;
  /**
   * A worker over this Keel: claims runnable runs and walks them from their ledger heads (`keel
   * worker`, `keel serve`'s recovery and `keel recover --all` are this).
   */
  worker(o?: WorkerHandleOptions): Worker;
  readonly workflows: WorkflowsHandle;
  readonly events: EventsHandle;
  readonly runs: RunsHandle;
  readonly approvals: ApprovalsHandle;
  readonly keys: ApiKeysHandle;
  /** Ledger entries across runs: filtered by run, workflow, kind, actor, code and time; counts by kind. */
  readonly audit: AuditHandle;
  readonly writs: WritsHandle;
  readonly idempotency: IdempotencyHandle;
  /** Tests, shadow runs, promotion gates, the replay gate, rollouts and diffs (docs/lifecycle.md). */
  readonly lifecycle: LifecycleHandle;
  /** Metrics (`createKeel({ metrics: true })`) and the trace exporter (`{ traces }`), when configured. */
  readonly telemetry: { readonly metrics?: KeelMetrics; readonly traces?: TraceExporter };
  /** Waits for background lifecycle work (shadow runs, automatic rollout steps), then closes the store. */
  close(): Promise<void>;
}

/** The lifecycle of a tenant's workflows: a version earns each step toward autonomy with evidence. */
export interface LifecycleHandle {
  /** Runs a version's `tests:` (and named events given by hand) in simulated mode. */
  test(
    tenant: string,
    workflowId: string,
    o?: { version?: number; events?: readonly { name: string; event: unknown }[] },
  ): Promise<TestReport>;
  /** How a SHADOW version's runs compared with the live runs they shadowed. */
  shadowReport(
    tenant: string,
    workflowId: string,
    o?: { version?: number; since?: string },
  ): Promise<ShadowReport>;
  /** The gate a move of a version to `to` must meet, judged on the evidence now; changes nothing. */
  gate(tenant: string, workflowId: string, to: string, o?: { version?: number }): Promise<GateReport>;
  /** Moves a version one step (gated up, always down), recorded in the workflow's chain. */
  promote(
    tenant: string,
    workflowId: string,
    to: string,
    p: Principal,
    o?: PromoteOptions,
  ): Promise<{ promotion: Promotion; report: GateReport | undefined }>;
  /** Re-plans the LIVE version's last runs against a version, calling nothing. */
  replayGate(
    tenant: string,
    workflowId: string,
    o?: { version?: number; runs?: number },
  ): Promise<ReplayGateReport>;
  readonly rollout: {
    start(
      tenant: string,
      workflowId: string,
      toVersion: number,
      p: Principal,
      o: RolloutOptions,
    ): Promise<{ rollout: RolloutState; promotion: Promotion; report: GateReport }>;
    advance(
      tenant: string,
      workflowId: string,
      p: Principal,
    ): Promise<{ rollout: RolloutState; verdict: RolloutVerdict }>;
    rollback(
      tenant: string,
      workflowId: string,
      p: Principal,
      reason: string,
    ): Promise<{ rollout: RolloutState; verdict: RolloutVerdict }>;
    status(tenant: string, workflowId: string): Promise<RolloutStatus>;
  };
  /** What changed from version `a` to version `b`, in plain language. */
  diff(tenant: string, workflowId: string, a: number, b: number): Promise<SpecDiff>;
  /** The workflow's lifecycle records and whether their hash chain verifies. */
  records(tenant: string, workflowId: string): Promise<{ records: Promotion[]; chain: ChainResult }>;
  /**
   * Resolves once this process's background lifecycle work is done: the shadow work it queued
   * (worked now; items another process holds are left to it) and automatic rollout steps.
   */
  settled(): Promise<void>;
  /** The durable shadow queue (docs/lifecycle.md, "The shadow queue"): its lag, and its drainers. */
  readonly shadowQueue: ShadowQueueHandle;
}

/** The shadow queue: comparisons still to make, kept in the store until a drainer makes them. */
export interface ShadowQueueHandle {
  /**
   * Its lag: items waiting, items being worked, and how long the oldest has waited (ms) — across
   * the store, or of one tenant (one workflow, one version).
   */
  status(filter?: { tenant?: string; workflowId?: string; version?: number }): Promise<{
    waiting: number;
    running: number;
    oldestAgeMs?: number;
    /** Items kept as failed after their last attempt (not waiting), and the newest 20 of them. */
    failed: number;
    failures: readonly ShadowFailure[];
  }>;
  /**
   * Works every claimable item of a tenant (of all without one) now, a dead process's included; how
   * many. With `retryFailed` and a tenant, its items kept as failed are tried again first (`retried`).
   */
  drain(o?: { tenant?: string; retryFailed?: boolean }): Promise<{ worked: number; retried: number }>;
  /** Drains every tenant's queue continually in the background, yielding to live work and to `busy`. */
  run(o?: { pollMs?: number; busy?: () => boolean }): { stop(): Promise<void> };
}

/**
 * Compiles only while `createKeel` returns exactly a Keel: a handle that drifts from its declaration
 * fails here, and so does a method `createKeel` provides that the interface does not declare (a
 * documented method a library user could not see in the declarations).
 */
type MustBeKeel<K extends Keel> = K;
export type CreatedKeel = MustBeKeel<ReturnType<typeof createKeel>>;
/** The methods of each handle of `I` that the interface `A` does not declare (never when none). */
type Undeclared<I, A> =
  | Exclude<keyof I, keyof A>
  | {
      [K in keyof I & keyof A]: I[K] extends (...a: never[]) => unknown
        ? never
        : `${K & string}.${Exclude<keyof I[K], keyof A[K]> & string}`;
    }[keyof I & keyof A];
type MustBeNever<T extends never> = T;
export type NothingUndeclared = MustBeNever<Undeclared<CreatedKeel, Keel>>;
