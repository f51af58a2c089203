/**
 * What a store keeps for signed checkpoints (docs/audit.md): each tenant's checkpoint chain, and
 * for each checkpoint the run heads that changed since the one before (so the heads a checkpoint
 * covers are the latest rows at or before it, and a checkpoint costs what changed, not every run).
 * Run heads are read in creation order, `(createdAt, runId)`, the order the Merkle root is over.
 */
import type { Checkpoint } from '../core/checkpoint/index.ts';
import type { Head } from '../core/ledger/index.ts';

/** A run's head, in the order checkpoints cover runs. */
export interface CheckpointHead {
  readonly runId: string;
  readonly createdAt: string;
  readonly seq: number;
  readonly hash: string;
}

/** A run retention removed: what stays of it. */
export interface RetainedRun {
  readonly runId: string;
  readonly tenant: string;
  readonly createdAt: string;
  readonly workflowId: string;
  readonly version: number;
  readonly status: string;
  readonly head: Head;
  /** The digest of the verified export's manifest.json that holds the run. */
  readonly manifestDigest: string;
  readonly retainedAt: string;
}

/** A head as a checkpoint recorded it. */
export interface CheckpointHeadRow extends CheckpointHead {
  readonly checkpointSeq: number;
}

/** Where a page of the head log ends: the next page starts after it. */
export interface LogCursor {
  readonly checkpointSeq: number;
  readonly createdAt: string;
  readonly runId: string;
}

/** Where a page of heads ends: the next page starts after it. */
export interface HeadCursor {
  readonly createdAt: string;
  readonly runId: string;
}

export interface CheckpointStore {
  /**
   * Appends a checkpoint to its tenant's chain with the heads that changed since the last one, in
   * one transaction; refused (`head_conflict`) unless it follows the tenant's last checkpoint
   * (seq one more, prevHash its hash), so two checkpointers never both extend the chain. A /2
   * checkpoint's head log (treeSize, logRoot) and its right edge (logFrontier) are kept with it.
   */
  appendCheckpoint(c: Checkpoint, changed: readonly CheckpointHead[]): Promise<void>;
  /** The tenant's checkpoint of this seq, or undefined. */
  getCheckpoint(tenant: string, seq: number): Promise<Checkpoint | undefined>;
  /**
   * The run's head as the tenant's checkpoints last recorded it (its latest head row), or
   * undefined if no checkpoint covers it: what an action on the run checks its ledger against.
   */
  checkpointedHead(tenant: string, runId: string): Promise<CheckpointHeadRow | undefined>;
  /**
   * The head log (docs/audit.md): every head row, in checkpoint order (checkpoint seq, then
   * creation order, as each checkpoint recorded them), a page at a time. The leaves of the tree
   * a /2 checkpoint signs the size and hash of.
   */
  checkpointLog(tenant: string, o: { after?: LogCursor; limit: number }): Promise<CheckpointHeadRow[]>;
  /**
   * The heads of the tenant's runs retention removed, in creation order, a page at a time: the
   * checkpoint chain keeps covering them (their heads as they were when removed).
   */
  retainedHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]>;
  /** A run retention removed, or undefined. */
  getRetainedRun(tenant: string, runId: string): Promise<RetainedRun | undefined>;
  /**
   * Removes whole runs (row, entries, approvals, blob links, blobs no other run of the tenant
   * references), each in the same transaction as its retained_runs row, and only if, inside that
   * transaction, it is still finished, still at `head`, and covered at that head by the tenant's
   * last checkpoint. A run that is not is skipped, with the reason.
   */
  retainRuns(
    tenant: string,
    runs: readonly { readonly runId: string; readonly head: Head }[],
    manifestDigest: string,
    at: string,
  ): Promise<{ removed: string[]; skipped: { runId: string; reason: string }[] }>;
  /** Every tenant that has runs, in byte order: what a periodic checkpointer goes through. */
  tenantsWithRuns(): Promise<string[]>;
  /** The tenant's checkpoints, oldest first. */
  listCheckpoints(tenant: string): Promise<Checkpoint[]>;
  /** The runs' current heads (the runs table), in creation order, a page at a time. */
  runHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]>;
  /** Each run's head as checkpoint `seq` covers it (its latest row at or before seq), in creation order. */
  checkpointedHeads(
    tenant: string,
    seq: number,
    o: { after?: HeadCursor; limit: number },
  ): Promise<CheckpointHead[]>;
  /** Every head row ever checkpointed, by run id then checkpoint, a page at a time. */
  checkpointHeadRows(
    tenant: string,
    o: { after?: { readonly runId: string; readonly checkpointSeq: number }; limit: number },
  ): Promise<CheckpointHeadRow[]>;
}
