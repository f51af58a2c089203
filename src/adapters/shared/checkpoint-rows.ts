/**
 * Checkpoint rows as both stores read them back: the same columns (docs/audit.md), the same
 * records.
 */
import type { Digest } from '../../core/canonical/index.ts';
import { isDigest } from '../../core/canonical/index.ts';
import {
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_V1,
  type Checkpoint,
  retentionRefusal,
} from '../../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { CheckpointHead, CheckpointHeadRow, RetainedRun } from '../../ports/index.ts';
import type { Row } from './row.ts';

const baseCheckpoint = (r: Row): Checkpoint => ({
  format: CHECKPOINT_FORMAT_V1,
  tenant: r.tenant as string,
  seq: Number(r.seq),
  at: r.at as string,
  runs: Number(r.runs),
  root: r.root as Checkpoint['root'],
  prevHash: (r.prev_hash as Checkpoint['prevHash']) ?? null,
  keyId: r.key_id as string,
  signature: r.signature as string,
  publicKey: r.public_key as string,
  hash: r.hash as Checkpoint['hash'],
  ...(typeof r.root_signature === 'string' ? { rootSignature: r.root_signature } : {}),
});

/** The stored right edge of the head log, if it is a list of digests (it is checked before use). */
function frontierOf(text: unknown): Checkpoint['logFrontier'] {
  if (typeof text !== 'string') return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) && v.every((d) => isDigest(d)) ? (v as Digest[]) : undefined;
  } catch {
    return undefined;
  }
}

/** A checkpoints row as its record: /2 when it has a head log (tree_size), else /1. */
export const toCheckpoint = (r: Row): Checkpoint => {
  const frontier = frontierOf(r.log_frontier);
  return {
    ...baseCheckpoint(r),
    ...(r.tree_size !== null && r.tree_size !== undefined
      ? {
          format: CHECKPOINT_FORMAT,
          treeSize: Number(r.tree_size),
          logRoot: r.log_root as Digest,
          ...(frontier ? { logFrontier: frontier } : {}),
        }
      : {}),
  };
};

/** The columns of a checkpoint's stored head log: its size, hash and right edge (NULL for a /1). */
export const logColumns = (c: Checkpoint): [number | null, string | null, string | null] =>
  c.format === CHECKPOINT_FORMAT
    ? [c.treeSize ?? null, c.logRoot ?? null, c.logFrontier ? JSON.stringify(c.logFrontier) : null]
    : [null, null, null];

export const toHead = (r: Row): CheckpointHead => ({
  runId: r.run_id as string,
  createdAt: r.created_at as string,
  seq: Number(r.head_seq),
  hash: r.head_hash as string,
});

/**
 * Refuses `c` unless it follows the tenant's last checkpoint (`last`: its row's seq and hash, or
 * none): seq one more, prevHash its hash. Both stores call this inside the appending transaction.
 */
export function assertFollows(c: Checkpoint, last: Row | undefined): void {
  const seq = last ? Number(last.seq) : 0;
  if (c.seq !== seq + 1 || (c.prevHash ?? null) !== ((last?.hash as string | undefined) ?? null))
    throw new KeelError(
      ErrorCode.headConflict,
      `checkpoint ${c.seq} of tenant ${c.tenant} does not follow its last checkpoint (${seq}): another checkpoint was made meanwhile`,
      { tenant: c.tenant, seq: c.seq },
    );
}

export const toHeadRow = (r: Row): CheckpointHeadRow => ({
  ...toHead(r),
  checkpointSeq: Number(r.checkpoint_seq),
});

export const toRetainedRun = (r: Row): RetainedRun => ({
  runId: r.run_id as string,
  tenant: r.tenant as string,
  createdAt: r.created_at as string,
  workflowId: r.workflow_id as string,
  version: Number(r.version),
  status: r.status as string,
  head: { seq: Number(r.head_seq), hash: r.head_hash as RetainedRun['head']['hash'] },
  manifestDigest: r.manifest_digest as string,
  retainedAt: r.retained_at as string,
});

/**
 * Why a run may not be removed now, or undefined (core's retentionRefusal, the rule the dry run
 * applies too): `row` is its runs row, `covered` its head in the tenant's last checkpoint
 * (checkpoint_latest). Both stores ask this inside the removing transaction.
 */
export function retentionRefusalOf(
  row: Row | undefined,
  head: { readonly seq: number; readonly hash: string },
  covered: Row | undefined,
): string | undefined {
  return retentionRefusal(
    row && {
      status: row.status as string,
      head: { seq: Number(row.head_seq), hash: row.head_hash as string },
    },
    head,
    covered && { seq: Number(covered.head_seq), hash: covered.head_hash as string },
  );
}
