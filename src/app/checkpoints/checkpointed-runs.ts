/**
 * Every head the tenant's checkpoints recorded, against the ledger as the store holds it now, run by
 * run: each run's chain verifies from its root to its last checkpointed head, its root derives its
 * id, and its entry at each checkpointed seq is the one checkpointed. A run rewritten even with its
 * chain recomputed end to end fails here, named with its seq. A run retention removed (after a
 * verified export) is accepted gone only at the head last checkpointed. Reads only.
 */
import type { PayloadOf } from '../../core/ledger/index.ts';
import { LedgerVerifier } from '../../core/ledger/index.ts';
import { rootNamesRun } from '../../core/run/index.ts';
import type { CheckpointHeadRow, Store } from '../../ports/index.ts';
import type { AuditAnomaly } from './audit-report.ts';
import { PAGE } from './head-streams.ts';

/** Checks the runs, telling `note` of each anomaly; how many runs were checked and how many were retained. */
export async function checkCheckpointedRuns(
  store: Store,
  tenant: string,
  note: (a: AuditAnomaly) => void,
): Promise<{ runsChecked: number; retained: number }> {
  let runsChecked = 0;
  let retained = 0;
  let group: CheckpointHeadRow[] = [];
  const checkRun = async (rows: readonly CheckpointHeadRow[]) => {
    runsChecked++;
    const runId = rows[0]!.runId;
    const upTo = Math.max(...rows.map((r) => r.seq));
    const stored = await store.ledger.readEntries(tenant, runId, 0, upTo + 1);
    if (stored.length === 0) {
      // Removed by retention: the checkpoint chain is what proves it, at the head it was removed at.
      const kept = await store.checkpoints.getRetainedRun(tenant, runId);
      const lastRow = rows.reduce((a, b) => (b.checkpointSeq > a.checkpointSeq ? b : a));
      if (kept && kept.head.seq === lastRow.seq && kept.head.hash === lastRow.hash) {
        retained++;
        return;
      }
      if (kept)
        return note({
          kind: 'hash-mismatch',
          runId,
          seq: kept.head.seq,
          checkpoint: lastRow.checkpointSeq,
          detail: `run ${runId} was removed by retention at head seq ${kept.head.seq} (${kept.head.hash}), but checkpoint ${lastRow.checkpointSeq} recorded seq ${lastRow.seq} (${lastRow.hash})`,
        });
    }
    let root: PayloadOf<'run.started'> | undefined;
    const v = new LedgerVerifier(runId, (_k, payload, seq) => {
      if (seq === 0) root = payload as PayloadOf<'run.started'>;
    });
    for (const e of stored) if (!v.push(e)) break;
    const r = v.result();
    if (stored.length === 0)
      return note({
        kind: 'missing-entry',
        runId,
        detail: `run ${runId} was checkpointed and is no longer in the store`,
      });
    if (!r.ok)
      return note({
        kind: 'hash-mismatch',
        runId,
        seq: r.failure.seq,
        detail: `run ${runId}: ${r.failure.message}`,
      });
    if (!root || !rootNamesRun(root, runId) || root.tenant !== tenant)
      return note({
        kind: 'hash-mismatch',
        runId,
        seq: 0,
        detail: `run ${runId}: its root does not derive its id`,
      });
    for (const row of rows) {
      const e = stored[row.seq];
      if (!e)
        note({
          kind: 'missing-entry',
          runId,
          seq: row.seq,
          checkpoint: row.checkpointSeq,
          detail: `run ${runId} ends before seq ${row.seq}, which checkpoint ${row.checkpointSeq} recorded`,
        });
      else if (e.hash !== row.hash)
        note({
          kind: 'hash-mismatch',
          runId,
          seq: row.seq,
          checkpoint: row.checkpointSeq,
          detail: `run ${runId} has entry ${e.hash} at seq ${row.seq}, but checkpoint ${row.checkpointSeq} recorded ${row.hash}: the run was rewritten`,
        });
    }
  };
  let after: { runId: string; checkpointSeq: number } | undefined;
  for (;;) {
    const page = await store.checkpoints.checkpointHeadRows(tenant, {
      ...(after ? { after } : {}),
      limit: PAGE,
    });
    for (const row of page) {
      if (group.length > 0 && group[0]!.runId !== row.runId) {
        await checkRun(group);
        group = [];
      }
      group.push(row);
    }
    if (page.length < PAGE) break;
    const lastRow = page[page.length - 1]!;
    after = { runId: lastRow.runId, checkpointSeq: lastRow.checkpointSeq };
  }
  if (group.length > 0) await checkRun(group);
  return { runsChecked, retained };
}
