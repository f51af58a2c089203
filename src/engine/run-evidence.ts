/**
 * What a run must agree with beside its ledger and row, read from the store (and the witness):
 * its pending-approval rows say what the ledger says; its ledger still extends the head its last
 * checkpoint recorded (not cut back below it, the same entry at that seq); and, given a checkpoint
 * witness, the store's chain still holds the last checkpoint the witness keeps. `verify` reports
 * these, and every action checks them before it does anything (engine.load, recover): after a
 * consistent erasure that only a checkpoint can see, nothing acts on the run again.
 *
 * A few point reads per call (no scan), once per command, never per step.
 */
import type { Checkpoint } from '../core/checkpoint/index.ts';
import { witnessedProblem } from '../core/checkpoint/index.ts';
import type { Head, PayloadOf, VerifyFailure } from '../core/ledger/index.ts';
import type { CheckpointHeadRow, CheckpointWitness, Store } from '../ports/index.ts';
import { approvalRowsProblem } from './run-integrity.ts';

/** The first way the run fails its last checkpointed head, or undefined (also when none covers it). */
export function checkpointedHeadProblem(
  row: CheckpointHeadRow | undefined,
  head: Head,
  hashAt: string | undefined,
): VerifyFailure | undefined {
  if (!row) return undefined;
  if (head.seq < row.seq)
    return {
      code: 'checkpoint_mismatch',
      seq: head.seq,
      message: `the run ends at seq ${head.seq}, but checkpoint ${row.checkpointSeq} recorded its head at seq ${row.seq}: it was cut back after it was checkpointed`,
    };
  if (hashAt !== row.hash)
    return {
      code: 'checkpoint_mismatch',
      seq: row.seq,
      message: `its entry at seq ${row.seq} is ${hashAt}, but checkpoint ${row.checkpointSeq} recorded ${row.hash}: it was rewritten after it was checkpointed`,
    };
  return undefined;
}

/** Why the store's checkpoint chain does not hold what the witness keeps, as a run's failure, or undefined. */
export async function witnessFailure(
  store: Store,
  witness: CheckpointWitness,
  tenant: string,
  head: Head,
): Promise<VerifyFailure | undefined> {
  const w: Checkpoint | undefined = await witness.last(tenant);
  if (!w) return undefined;
  const held = await store.checkpoints.getCheckpoint(tenant, w.seq);
  const lastSeq = held ? w.seq : ((await store.checkpoints.listCheckpoints(tenant)).at(-1)?.seq ?? 0);
  const problem = witnessedProblem(w, held, lastSeq);
  return problem
    ? { code: 'checkpoint_missing', seq: head.seq, message: `tenant ${tenant}: ${problem}` }
    : undefined;
}

/**
 * The first way a run disagrees with what sits beside its ledger: its pending-approval rows,
 * its last checkpointed head, the witness. `hashAt` gives its entry's hash at a seq (from entries
 * in hand, or one read).
 */
export async function runEvidenceProblem(
  store: Store,
  run: { readonly tenant: string; readonly runId: string },
  head: Head,
  open: PayloadOf<'approval.requested'> | undefined,
  hashAt: (seq: number) => Promise<string | undefined> | string | undefined,
  witness?: CheckpointWitness,
): Promise<VerifyFailure | undefined> {
  const [rows, checkpointed] = await Promise.all([
    store.runs.listPendingApprovals(run.tenant, run.runId),
    store.checkpoints.checkpointedHead(run.tenant, run.runId),
  ]);
  return (
    approvalRowsProblem(rows, open, head.seq) ??
    checkpointedHeadProblem(
      checkpointed,
      head,
      checkpointed && checkpointed.seq <= head.seq ? await hashAt(checkpointed.seq) : undefined,
    ) ??
    (witness ? await witnessFailure(store, witness, run.tenant, head) : undefined)
  );
}
