/**
 * Signed checkpoints in PostgreSQL (schema v10): the checkpoint chain per tenant and the run heads
 * each checkpoint recorded. Appending one is a transaction serialised per tenant (an advisory lock)
 * that first checks it follows the tenant's last checkpoint. Orders compare bytes (COLLATE "C"),
 * as SQLite does, so both stores hand out heads in one order and a root computes the same.
 */
import type pg from 'pg';
import type { Checkpoint } from '../../core/checkpoint/index.ts';
import type { CheckpointHead, HeadCursor } from '../../ports/index.ts';
import { assertFollows, logColumns } from '../shared/checkpoint-rows.ts';
import type { Row } from '../shared/rows.ts';

export const AFTER = (n: number) =>
  `($${n}::text IS NULL OR created_at > $${n} OR (created_at = $${n} AND run_id COLLATE "C" > $${n + 1}))`;

export const CHECKPOINT_SQL = {
  list: 'SELECT * FROM checkpoints WHERE tenant = $1 ORDER BY seq',
  runHeads: `SELECT run_id, created_at, head_seq, head_hash FROM runs WHERE tenant = $1 AND ${AFTER(2)}
              ORDER BY created_at, run_id COLLATE "C" LIMIT $4`,
  asOf: `SELECT DISTINCT ON (created_at, run_id COLLATE "C") run_id, created_at, head_seq, head_hash
           FROM checkpoint_heads
          WHERE tenant = $1 AND checkpoint_seq <= $2 AND ${AFTER(3)}
          ORDER BY created_at, run_id COLLATE "C", checkpoint_seq DESC LIMIT $5`,
  latest: `SELECT run_id, created_at, head_seq, head_hash FROM checkpoint_latest WHERE tenant = $1 AND ${AFTER(2)}
            ORDER BY created_at, run_id COLLATE "C" LIMIT $4`,
  lastSeq: 'SELECT coalesce(max(seq), 0) AS seq FROM checkpoints WHERE tenant = $1',
  one: 'SELECT * FROM checkpoints WHERE tenant = $1 AND seq = $2',
  runLast: `SELECT run_id, created_at, head_seq, head_hash, checkpoint_seq FROM checkpoint_heads
             WHERE tenant = $1 AND run_id = $2 ORDER BY checkpoint_seq DESC LIMIT 1`,
  log: `SELECT run_id, created_at, head_seq, head_hash, checkpoint_seq FROM checkpoint_heads
         WHERE tenant = $1 AND ($2::int IS NULL OR checkpoint_seq > $2
               OR (checkpoint_seq = $2 AND (created_at > $3 OR (created_at = $3 AND run_id COLLATE "C" > $4))))
         ORDER BY checkpoint_seq, created_at, run_id COLLATE "C" LIMIT $5`,
  rows: `SELECT run_id, created_at, head_seq, head_hash, checkpoint_seq FROM checkpoint_heads
          WHERE tenant = $1 AND ($2::text IS NULL OR run_id COLLATE "C" > $2 OR (run_id = $2 AND checkpoint_seq > $3))
          ORDER BY run_id COLLATE "C", checkpoint_seq LIMIT $4`,
};

export const afterParams = (a: HeadCursor | undefined) => [a?.createdAt ?? null, a?.runId ?? null];

export async function appendCheckpoint(
  client: pg.PoolClient,
  c: Checkpoint,
  changed: readonly CheckpointHead[],
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `keel.checkpoint ${c.tenant}`,
    ]);
    const last = (
      await client.query<Row>(
        'SELECT seq, hash FROM checkpoints WHERE tenant = $1 ORDER BY seq DESC LIMIT 1',
        [c.tenant],
      )
    ).rows[0];
    assertFollows(c, last);
    await client.query(
      `INSERT INTO checkpoints (tenant, seq, at, runs, root, prev_hash, key_id, public_key, signature, hash, root_signature, tree_size, log_root, log_frontier)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        c.tenant,
        c.seq,
        c.at,
        c.runs,
        c.root,
        c.prevHash,
        c.keyId,
        c.publicKey,
        c.signature,
        c.hash,
        c.rootSignature ?? null,
        ...logColumns(c),
      ],
    );
    for (let i = 0; i < changed.length; i += 5_000) {
      const part = changed.slice(i, i + 5_000);
      const values = [
        c.tenant,
        c.seq,
        part.map((h) => h.createdAt),
        part.map((h) => h.runId),
        part.map((h) => h.seq),
        part.map((h) => h.hash),
      ];
      await client.query(
        `INSERT INTO checkpoint_heads (tenant, checkpoint_seq, created_at, run_id, head_seq, head_hash)
         SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::int[], $6::text[])`,
        values,
      );
      await client.query(
        `INSERT INTO checkpoint_latest (tenant, checkpoint_seq, created_at, run_id, head_seq, head_hash)
         SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::int[], $6::text[])
         ON CONFLICT (tenant, created_at, run_id) DO UPDATE
           SET checkpoint_seq = excluded.checkpoint_seq, head_seq = excluded.head_seq, head_hash = excluded.head_hash`,
        values,
      );
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}
