/**
 * The `Keel` interface: what `createKeel` returns, declared here rather than inferred from its
 * closure, so the library's public surface (and its declaration file) changes only when this file
 * does. Every handle is tenant-scoped. `store`, `tools` and `engine` are Keel's own parts, there
 * for its server, CLI and workers; a library user needs the handles. The check at the end makes
 * the compiler refuse a `createKeel` that no longer returns a Keel.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { Entry, StoredEntry, VerifyResult } from '../core/ledger/index.ts';
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
  IdempotencyClaim,
  IdempotencyRef,
  IdempotencyResponse,
  PendingApproval,
  PrincipalKind,
  Promotion,
  RunFilter,
  RunPage,
  RunRecord,
  Store,
  TrustedKeyRecord,
  VersionRecord,
  WritBudgetUsage,
  WritRevocation,
} from '../ports/index.ts';
import type { Worker, WorkerOptions } from '../worker/index.ts';
import type { ApiKeyIdentity, CreatedApiKey } from './api-keys.ts';
import type { IdempotencyClaimInput } from './idempotency.ts';
import type { createKeel, EmitResult, HistoryLine, PublishOptions, StartOptions } from './keel.ts';
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
  promote(tenant: string, workflowId: string, to: string, by: string, version?: number): Promise<Promotion>;
  list(tenant: string, workflowId?: string): Promise<VersionRecord[]>;
  get(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined>;
  promotions(tenant: string, workflowId: string): Promise<Promotion[]>;
}

export interface EventsHandle {
  /** Starts one run per workflow whose latest LIVE or AUTONOMOUS version the event triggers. */
  emit(tenant: string, value: unknown, o?: StartOptions): Promise<EmitResult>;
}

export interface RunsHandle {
  /** The run; not_found when the tenant has no such run. */
  get(tenant: string, runId: string): Promise<RunRecord>;
  /** Starts a run of one workflow directly, whatever its status; the newest version unless `version` is given. */
  start(
    tenant: string,
    workflowId: string,
    event: unknown,
    o?: StartOptions & { version?: number },
  ): Promise<RunSummary & { created: boolean }>;
  list(tenant: string, filter?: RunFilter): Promise<RunPage>;
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
  list(tenant: string, runId?: string): Promise<PendingApproval[]>;
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
  readonly writs: WritsHandle;
  readonly idempotency: IdempotencyHandle;
  close(): Promise<void>;
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
