/**
 * The lifecycle in PostgreSQL: lifecycle records appended to their workflow's hash chain with the
 * status changes and rollout state they carry, in one transaction serialised per workflow (a
 * transaction-scoped advisory lock; the unique previous hash is the last word), run counts, and
 * the tally of a version's live runs in a window (shared/live-run-tally.ts).
 */
import type pg from 'pg';
import { chainHead } from '../../core/lifecycle/index.ts';
import type { LifecycleChange, Promotion, RunCount } from '../../ports/index.ts';
import {
  chainAfter,
  LIFECYCLE_SQL,
  modeFilter,
  PROMOTION_COLUMNS,
  promotionValues,
  rolloutMoved,
  statusMoved,
  toPromotionRecord,
} from '../shared/lifecycle-rows.ts';
import { liveRunTallySql, POSTGRES_PAYLOAD_FIELD } from '../shared/live-run-tally.ts';
import type { Row } from '../shared/row.ts';

export const PROMOTIONS_SQL = 'SELECT * FROM promotions WHERE tenant = $1 AND workflow_id = $2 ORDER BY id';

const INSERT_PROMOTION = `INSERT INTO promotions (tenant, workflow_id, version, from_status, to_status, promoted_by, at, ${PROMOTION_COLUMNS})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;

export async function recordLifecycle(client: pg.PoolClient, change: LifecycleChange): Promise<Promotion[]> {
  const { tenant, workflowId } = change;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `keel.lifecycle ${tenant} ${workflowId}`,
    ]);
    const last = (await client.query<Row>(LIFECYCLE_SQL.lastPromotion, [tenant, workflowId])).rows[0];
    const head =
      last === undefined
        ? chainHead([])
        : typeof last.hash === 'string'
          ? last.hash
          : chainHead(
              (await client.query<Row>(PROMOTIONS_SQL, [tenant, workflowId])).rows.map(toPromotionRecord),
            );
    const records = chainAfter(head, change.records);
    for (const p of records) {
      const moved = await client.query(LIFECYCLE_SQL.setStatus, [
        p.to,
        tenant,
        workflowId,
        p.version,
        p.from,
      ]);
      if (moved.rowCount === 0) throw statusMoved(p);
      await client.query(INSERT_PROMOTION, [
        tenant,
        workflowId,
        p.version,
        p.from,
        p.to,
        p.by,
        p.at,
        ...promotionValues(p),
      ]);
    }
    const r = change.rollout;
    if (r) {
      const state = JSON.stringify(r.state);
      const done =
        r.expectedRev === null
          ? await client.query(LIFECYCLE_SQL.insertRollout, [tenant, workflowId, state])
          : await client.query(LIFECYCLE_SQL.updateRollout, [tenant, workflowId, state, r.expectedRev]);
      if (done.rowCount === 0) throw rolloutMoved(workflowId);
    }
    await client.query('COMMIT');
    return records;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

/** The statements of `tallyLiveRuns`. */
export const LIVE_RUN_TALLY_SQL = liveRunTallySql(POSTGRES_PAYLOAD_FIELD);

/** The SQL and values of `countRuns`. */
export function countRunsQuery(tenant: string, c: RunCount): { text: string; values: unknown[] } {
  const values: unknown[] = [tenant];
  const where = ['tenant = $1', ...modeFilter(c, (v) => `$${values.push(v)}`, { workflowAndStatus: true })];
  return {
    text: `SELECT status, count(*) AS n FROM runs WHERE ${where.join(' AND ')} GROUP BY status`,
    values,
  };
}
