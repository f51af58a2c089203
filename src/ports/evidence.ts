/**
 * Lifecycle evidence: what a SHADOW version's gate reads besides the runs themselves — each shadow
 * run's comparison with its live run (kept once, never replaced), and the shadow runs older
 * Keels skipped at a concurrency limit (still read, no longer written). Test runs are runs
 * (mode `test`), counted by the run index.
 */
import type { Comparison } from '../core/lifecycle/index.ts';

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

/** A shadow run not started because the tenant had as many running as it may (counted, never queued). */
export interface ShadowSkip {
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly liveRunId: string;
  readonly reason: string;
  readonly at: string;
}

export interface Evidence {
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
}
