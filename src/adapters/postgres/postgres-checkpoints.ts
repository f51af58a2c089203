/**
 * Signed checkpoints in PostgreSQL (schema v10): the checkpoint chain per tenant and the run heads
 * each checkpoint recorded. Appending one is a transaction serialised per tenant (an advisory lock)
 * that first checks it follows the tenant's last checkpoint. Orders compare bytes (COLLATE "C"),
 * as SQLite does, so both stores hand out heads in one order and a root computes the same.
 * Retention (retention.ts) removes runs the chain goes on covering, each in a transaction.
 */
import type pg from 'pg';
import type { Checkpoint } from '../../core/checkpoint/index.ts';
import type { Head } from '../../core/ledger/index.ts';
import type {
  CheckpointHead,
  CheckpointHeadRow,
  CheckpointStore,
  HeadCursor,
  LogCursor,
  RetainedRun,
} from '../../ports/index.ts';
import {
  assertFollows,
  logColumns,
  toCheckpoint,
  toHead,
  toHeadRow,
  toRetainedRun,
} from '../shared/checkpoint-rows.ts';
import type { Row } from '../shared/row.ts';
import type { PostgresHandle } from './postgres-handle.ts';
import { RETENTION_SQL, retainOne } from './retention.ts';

const AFTER = (n: number) =>
  `($${n}::text IS NULL OR created_at > $${n} OR (created_at = $${n} AND run_id COLLATE "C" > $${n + 1}))`;

const CHECKPOINT_SQL = {
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

const afterParams = (a: HeadCursor | undefined) => [a?.createdAt ?? null, a?.runId ?? null];
const RETAINED_AFTER = AFTER(2);

async function appendCheckpoint(
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

export class PostgresCheckpoints implements CheckpointStore {
  constructor(private readonly h: PostgresHandle) {}

  appendCheckpoint(c: Checkpoint, changed: readonly CheckpointHead[]): Promise<void> {
    return this.h.withTransaction('appending a checkpoint', (client) => appendCheckpoint(client, c, changed));
  }

  async listCheckpoints(tenant: string): Promise<Checkpoint[]> {
    return (await this.h.query(CHECKPOINT_SQL.list, [tenant])).rows.map(toCheckpoint);
  }

  async getCheckpoint(tenant: string, seq: number): Promise<Checkpoint | undefined> {
    const row = (await this.h.query(CHECKPOINT_SQL.one, [tenant, seq])).rows[0];
    return row ? toCheckpoint(row) : undefined;
  }

  async checkpointedHead(tenant: string, runId: string): Promise<CheckpointHeadRow | undefined> {
    const row = (await this.h.query(CHECKPOINT_SQL.runLast, [tenant, runId])).rows[0];
    return row ? toHeadRow(row) : undefined;
  }

  async checkpointLog(tenant: string, o: { after?: LogCursor; limit: number }): Promise<CheckpointHeadRow[]> {
    const a = o.after;
    return (
      await this.h.query(CHECKPOINT_SQL.log, [
        tenant,
        a?.checkpointSeq ?? null,
        a?.createdAt ?? null,
        a?.runId ?? null,
        o.limit,
      ])
    ).rows.map(toHeadRow);
  }

  async retainedHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return (
      await this.h.query(RETENTION_SQL.heads(RETAINED_AFTER), [tenant, ...afterParams(o.after), o.limit])
    ).rows.map(toHead);
  }

  async getRetainedRun(tenant: string, runId: string): Promise<RetainedRun | undefined> {
    const row = (await this.h.query(RETENTION_SQL.get, [runId, tenant])).rows[0];
    return row ? toRetainedRun(row) : undefined;
  }

  async retainRuns(
    tenant: string,
    runs: readonly { readonly runId: string; readonly head: Head }[],
    manifestDigest: string,
    at: string,
  ): Promise<{ removed: string[]; skipped: { runId: string; reason: string }[] }> {
    const removed: string[] = [];
    const skipped: { runId: string; reason: string }[] = [];
    for (const r of runs) {
      const reason = await this.h.withTransaction('removing a retained run', (client) =>
        retainOne(client, tenant, r.runId, r.head, manifestDigest, at),
      );
      if (reason) skipped.push({ runId: r.runId, reason });
      else removed.push(r.runId);
    }
    return { removed, skipped };
  }

  async tenantsWithRuns(): Promise<string[]> {
    return (await this.h.query('SELECT DISTINCT tenant FROM runs ORDER BY tenant', [])).rows.map(
      (r) => r.tenant as string,
    );
  }

  async runHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return (await this.h.query(CHECKPOINT_SQL.runHeads, [tenant, ...afterParams(o.after), o.limit])).rows.map(
      toHead,
    );
  }

  async checkpointedHeads(
    tenant: string,
    seq: number,
    o: { after?: HeadCursor; limit: number },
  ): Promise<CheckpointHead[]> {
    // As of the last checkpoint, from checkpoint_latest (a scan in order); of an earlier one, from the history.
    const last = Number((await this.h.query(CHECKPOINT_SQL.lastSeq, [tenant])).rows[0]?.seq ?? 0);
    const r =
      seq >= last
        ? await this.h.query(CHECKPOINT_SQL.latest, [tenant, ...afterParams(o.after), o.limit])
        : await this.h.query(CHECKPOINT_SQL.asOf, [tenant, seq, ...afterParams(o.after), o.limit]);
    return r.rows.map(toHead);
  }

  async checkpointHeadRows(
    tenant: string,
    o: { after?: { runId: string; checkpointSeq: number }; limit: number },
  ): Promise<CheckpointHeadRow[]> {
    const a = o.after;
    return (
      await this.h.query(CHECKPOINT_SQL.rows, [tenant, a?.runId ?? null, a?.checkpointSeq ?? 0, o.limit])
    ).rows.map(toHeadRow);
  }
}
