/**
 * Retention in PostgreSQL (schema v11): as the SQLite store does it (sqlite-retention.ts), one run
 * per transaction with its row locked, so an append cannot land on a run being removed. It never
 * removes a run that moved, is not finished, or the last checkpoint does not cover.
 */
import type pg from 'pg';
import type { Head } from '../../core/ledger/index.ts';
import { retentionRefusalOf } from '../shared/checkpoint-rows.ts';
import type { Row } from '../shared/row.ts';

export const RETENTION_SQL = {
  get: 'SELECT * FROM retained_runs WHERE run_id = $1 AND tenant = $2',
  heads: (after: string) => `SELECT run_id, created_at, head_seq, head_hash FROM retained_runs
    WHERE tenant = $1 AND ${after} ORDER BY created_at, run_id COLLATE "C" LIMIT $4`,
} as const;

/** Removes one run if it may go; the reason it may not, otherwise. */
export async function retainOne(
  client: pg.PoolClient,
  tenant: string,
  runId: string,
  head: Head,
  manifest: string,
  at: string,
): Promise<string | undefined> {
  await client.query('BEGIN');
  try {
    const row = (
      await client.query<Row>('SELECT * FROM runs WHERE run_id = $1 AND tenant = $2 FOR UPDATE', [
        runId,
        tenant,
      ])
    ).rows[0];
    const covered = row
      ? (
          await client.query<Row>(
            'SELECT head_seq, head_hash FROM checkpoint_latest WHERE tenant = $1 AND created_at = $2 AND run_id = $3',
            [tenant, row.created_at, runId],
          )
        ).rows[0]
      : undefined;
    const refusal = retentionRefusalOf(row, head, covered);
    if (refusal) {
      await client.query('ROLLBACK');
      return refusal;
    }
    const r = row!;
    await client.query(
      `INSERT INTO retained_runs (run_id, tenant, created_at, workflow_id, version, status, head_seq, head_hash, manifest_digest, retained_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        runId,
        tenant,
        r.created_at,
        r.workflow_id,
        r.version,
        r.status,
        r.head_seq,
        r.head_hash,
        manifest,
        at,
      ],
    );
    const links = await client.query<{ hash: string }>(
      'DELETE FROM run_blobs WHERE run_key = $1 RETURNING hash',
      [r.run_key],
    );
    if (links.rows.length > 0)
      await client.query(
        `DELETE FROM blobs b WHERE b.tenant = $1 AND b.hash = ANY($2::text[]) AND NOT EXISTS (
           SELECT 1 FROM run_blobs rb JOIN runs x ON x.run_key = rb.run_key WHERE rb.hash = b.hash AND x.tenant = b.tenant)`,
        [tenant, links.rows.map((l) => l.hash)],
      );
    await client.query('DELETE FROM approvals WHERE run_id = $1', [runId]);
    await client.query('DELETE FROM entries WHERE run_key = $1', [r.run_key]);
    await client.query('DELETE FROM runs WHERE run_key = $1', [r.run_key]);
    await client.query('COMMIT');
    return undefined;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
