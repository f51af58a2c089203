/**
 * What a run directory carries of the tenant's last checkpoint (docs/run-format.md): the signed
 * checkpoint and each run's inclusion proof in its head log. Reads only.
 */
import type { Digest } from '../../core/canonical/index.ts';
import { CHECKPOINT_FORMAT, LogTree, logLeaf, signedRecord, toDigest } from '../../core/checkpoint/index.ts';
import type { CheckpointFile, CoveredHead } from '../../core/run-dir/index.ts';
import type { Store } from '../../ports/index.ts';
import { chainRefused } from './checkpoint-chain.ts';
import { headLog } from './head-streams.ts';

/**
 * What a run directory carries of the tenant's last checkpoint (docs/run-format.md): the signed
 * checkpoint and, for each of these runs its head log records, the run's latest recorded head
 * with its inclusion proof. Undefined when the last checkpoint is a /1 (no head log) or none.
 * Reads the whole head log once; one whose hash is not what the checkpoint signed is refused.
 */
export async function checkpointCoverage(
  store: Store,
  tenant: string,
  runIds: readonly string[],
): Promise<CheckpointFile | undefined> {
  const last = (await store.checkpoints.listCheckpoints(tenant)).at(-1);
  if (last?.format !== CHECKPOINT_FORMAT) return undefined;
  const wanted = new Set(runIds);
  const leaves: Buffer[] = [];
  const at = new Map<string, { index: number; seq: number; hash: string }>();
  for await (const row of headLog(store, tenant)) {
    if (row.checkpointSeq > last.seq) break;
    if (wanted.has(row.runId)) at.set(row.runId, { index: leaves.length, seq: row.seq, hash: row.hash });
    leaves.push(logLeaf(row));
  }
  const tree = new LogTree(leaves);
  if (tree.size !== last.treeSize || toDigest(tree.hash()) !== last.logRoot)
    throw chainRefused(
      tenant,
      `the head log the store holds does not give the one checkpoint ${last.seq} signed (see keel audit verify)`,
      last.seq,
    );
  const runs: Record<string, CoveredHead> = {};
  for (const id of runIds) {
    const h = at.get(id);
    if (h)
      runs[id] = {
        seq: h.seq,
        hash: h.hash as Digest,
        leafIndex: h.index,
        proof: tree.inclusionProof(h.index).map(toDigest),
      };
  }
  return { checkpoint: signedRecord(last), runs };
}
