/**
 * The registry: published versions (immutable once stored), their lifecycle records hash-chained
 * per workflow, and each workflow's rollout. A status change and the rollout it moves are written
 * with their records in one transaction, each only if nothing moved since it was read.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { PromotionRecord, RolloutState } from '../core/lifecycle/index.ts';
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

/** A lifecycle record of a workflow, hash-chained per workflow (core/lifecycle/promotion-chain.ts). */
export type Promotion = PromotionRecord;

/** A lifecycle record about to be appended to its workflow's chain: the store computes the hashes. */
export type NewPromotion = Omit<PromotionRecord, 'prevHash' | 'hash'>;
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

export interface Registry {
  /** Stores a version; publishing identical content again is a no-op, different content a version_immutable error. */
  putVersion(rec: VersionRecord): Promise<{ created: boolean; record: VersionRecord }>;
  /** A version, or the newest version when `version` is omitted. */
  getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined>;
  listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]>;
  /** The tenants with a LIVE or AUTONOMOUS version: those a scheduler serves. */
  routableTenants(): Promise<string[]>;
  /** Changes one version's status with its lifecycle record (`recordLifecycle` with one record). */
  setVersionStatus(p: NewPromotion): Promise<void>;
  /** The workflow's lifecycle records in chain order, hashes included. */
  listPromotions(tenant: string, workflowId: string): Promise<Promotion[]>;
  /** Appends lifecycle records and applies what they change, atomically (LifecycleChange). */
  recordLifecycle(change: LifecycleChange): Promise<Promotion[]>;
  /** The workflow's rollout, if one was ever started (active, completed or rolled back). */
  getRollout(tenant: string, workflowId: string): Promise<StoredRollout | undefined>;
}
