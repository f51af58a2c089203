/**
 * The `Keel` interface: what `createKeel` returns, written here rather than inferred from it, so
 * the library's public surface (and its declaration file) changes only when a declared interface
 * does. Keel is a set of named services, each declared beside its implementation — workflows
 * (workflows-handle.ts), events (events-handle.ts), runs (runs-handle.ts), approvals
 * (approvals-handle.ts), the lifecycle (lifecycle/lifecycle-handle.ts), API keys (api-keys.ts),
 * writs (writ-trust.ts), idempotency records (idempotency.ts) and the audit query (audit.ts) —
 * and composed by `createKeel` (keel.ts); docs/architecture.md maps them. Every handle is
 * tenant-scoped. `store`, `tools` and `engine` are Keel's own parts, there for its server, CLI and
 * workers; a library user needs the handles.
 */
import type { Engine, ToolRegistry } from '../engine/index.ts';
import type { Store } from '../ports/index.ts';
import type { Worker, WorkerOptions } from '../worker/index.ts';
import type { ApiKeysHandle } from './api-keys.ts';
import type { ApprovalsHandle } from './approvals-handle.ts';
import type { AuditHandle } from './audit.ts';
import type { EventsHandle } from './events-handle.ts';
import type { IdempotencyHandle } from './idempotency.ts';
import type { LifecycleHandle } from './lifecycle/lifecycle-handle.ts';
import type { KeelMetrics } from './metrics.ts';
import type { RunsHandle } from './runs-handle.ts';
import type { TraceExporter } from './trace-export.ts';
import type { WorkflowsHandle } from './workflows-handle.ts';
import type { WritsHandle } from './writ-trust.ts';

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
  /** Specs validated, published as DRAFT versions, listed, explained and promoted. */
  readonly workflows: WorkflowsHandle;
  /** Events delivered: each named by `(source, id)`, routed once, its runs started. */
  readonly events: EventsHandle;
  /** Runs started, listed, counted, read, verified, replayed, forked, and their walks controlled. */
  readonly runs: RunsHandle;
  /** Pending approvals from the runs' ledgers, and the decisions on them. */
  readonly approvals: ApprovalsHandle;
  /** Bearer API keys of the HTTP API (`keel serve`). */
  readonly keys: ApiKeysHandle;
  /** Ledger entries across runs: filtered by run, workflow, kind, actor, code and time; counts by kind. */
  readonly audit: AuditHandle;
  /** Trusted writ keys, revoked writs, writ budgets, and inspecting a writ. */
  readonly writs: WritsHandle;
  /** Idempotency records of HTTP requests (`Idempotency-Key`). */
  readonly idempotency: IdempotencyHandle;
  /** Tests, shadow runs, promotion gates, the replay gate, rollouts and diffs (docs/lifecycle.md). */
  readonly lifecycle: LifecycleHandle;
  /** Metrics (`createKeel({ metrics: true })`) and the trace exporter (`{ traces }`), when configured. */
  readonly telemetry: { readonly metrics?: KeelMetrics; readonly traces?: TraceExporter };
  /** Waits for background lifecycle work (shadow runs, automatic rollout steps), then closes the store. */
  close(): Promise<void>;
}
