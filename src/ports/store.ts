/**
 * The Store port: everything the engine keeps durably, behind one contract that every adapter
 * (SQLite, PostgreSQL) binds through `runStoreContract`.
 *
 * Every read and write names its tenant; a run of another tenant is indistinguishable from a run
 * that does not exist. Appends are atomic and take an expected head: a stale head is a
 * `head_conflict`, so two writers can never both append at one seq. The run row and the pending
 * approvals are projections of the ledger, written in the same transaction as the entries.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { Head, RunStatus, StoredEntry } from '../core/ledger/index.ts';
import type { WorkflowSpec, WorkflowStatus } from '../core/spec/index.ts';

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

export interface Promotion {
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly from: WorkflowStatus;
  readonly to: WorkflowStatus;
  readonly by: string;
  readonly at: string;
}

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
}

/** Creating a run: its first entries and the identity the run row is indexed by. */
export interface NewRun {
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  readonly eventId: string;
  readonly eventType: string;
}

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
}

export interface RunFilter {
  readonly status?: RunStatus;
  readonly workflowId?: string;
  readonly limit?: number;
  /** Opaque cursor from a previous page's `next`. */
  readonly cursor?: string;
}

export interface RunPage {
  readonly runs: readonly RunRecord[];
  readonly next?: string;
}

export interface StoreStats {
  /** Durable transactions committed since the store was opened (one fsync each in SQLite FULL mode). */
  readonly commits: number;
  readonly entriesAppended: number;
}

export interface Store {
  /** Atomically appends entries; resolves once they are durable. Throws head_conflict on a stale head. */
  append(req: AppendRequest): Promise<Head>;
  getRun(tenant: string, runId: string): Promise<RunRecord | undefined>;
  listRuns(tenant: string, filter?: RunFilter): Promise<RunPage>;
  /** Entries in seq order from `fromSeq` (default 0). Empty when the run is unknown to this tenant. */
  readEntries(tenant: string, runId: string, fromSeq?: number): Promise<StoredEntry[]>;
  listPendingApprovals(tenant: string, runId?: string): Promise<PendingApproval[]>;

  /** Stores a version; publishing identical content again is a no-op, different content a version_immutable error. */
  putVersion(rec: VersionRecord): Promise<{ created: boolean; record: VersionRecord }>;
  /** A version, or the newest version when `version` is omitted. */
  getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined>;
  listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]>;
  setVersionStatus(p: Promotion): Promise<void>;
  listPromotions(tenant: string, workflowId: string): Promise<Promotion[]>;

  stats(): StoreStats;
  close(): Promise<void>;
}
