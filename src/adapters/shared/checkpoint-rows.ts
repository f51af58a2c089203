/**
 * Checkpoint rows as both stores read them back: the same columns (docs/audit.md), the same
 * records.
 */
import type { Checkpoint } from '../../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { CheckpointHead, CheckpointHeadRow } from '../../ports/index.ts';
import type { Row } from './rows.ts';

export const toCheckpoint = (r: Row): Checkpoint => ({
  format: 'keel-checkpoint/1',
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
