/**
 * Checkpoint rows as both stores read them back: the same columns (docs/audit.md), the same
 * records.
 */
import type { Checkpoint } from '../../core/checkpoint/index.ts';
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
});

export const toHead = (r: Row): CheckpointHead => ({
  runId: r.run_id as string,
  createdAt: r.created_at as string,
  seq: Number(r.head_seq),
  hash: r.head_hash as string,
});

export const toHeadRow = (r: Row): CheckpointHeadRow => ({
  ...toHead(r),
  checkpointSeq: Number(r.checkpoint_seq),
});
