/**
 * Signed checkpoints in the SQLite file (schema v11): the checkpoint chain per tenant and the run
 * heads each checkpoint recorded (only those that changed since the one before). Appending a
 * checkpoint is one IMMEDIATE transaction that first checks it follows the tenant's last one.
 * Retention (sqlite-retention.ts) removes runs the chain goes on covering.
 */
import type Database from 'better-sqlite3';
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
import { assertFollows, logColumns, toCheckpoint, toHead, toHeadRow } from '../shared/checkpoint-rows.ts';
import type { Row } from '../shared/row.ts';
import type { SqliteHandle } from './sqlite-handle.ts';
import { SqliteRetention } from './sqlite-retention.ts';

/** `(created_at, run_id) > (?, ?)` in creation order, or every row. */
const AFTER = '(? IS NULL OR created_at > ? OR (created_at = ? AND run_id > ?))';
const afterParams = (a: HeadCursor | undefined) => [
  a?.createdAt ?? null,
  a?.createdAt ?? null,
  a?.createdAt ?? null,
  a?.runId ?? null,
];

export class SqliteCheckpoints implements CheckpointStore {
  private readonly append: (c: Checkpoint, changed: readonly CheckpointHead[]) => void;
  private readonly retention: SqliteRetention;
  private readonly tenants: Database.Statement;
  private readonly last: Database.Statement;
  private readonly all: Database.Statement;
  private readonly heads: Database.Statement;
  private readonly asOf: Database.Statement;
  private readonly latest: Database.Statement;
  private readonly rows: Database.Statement;
  private readonly one: Database.Statement;
  private readonly runLast: Database.Statement;
  private readonly log: Database.Statement;

  constructor(private readonly h: SqliteHandle) {
    const db: Database.Database = h.db;
    this.retention = new SqliteRetention(db);
    this.tenants = db.prepare('SELECT DISTINCT tenant FROM runs ORDER BY tenant').pluck();
    this.last = db.prepare('SELECT seq, hash FROM checkpoints WHERE tenant = ? ORDER BY seq DESC LIMIT 1');
    this.all = db.prepare('SELECT * FROM checkpoints WHERE tenant = ? ORDER BY seq');
    this.heads = db.prepare(
      `SELECT run_id, created_at, head_seq, head_hash FROM runs WHERE tenant = ? AND ${AFTER}
       ORDER BY created_at, run_id LIMIT ?`,
    );
    this.asOf = db.prepare(
      `SELECT run_id, created_at, head_seq, head_hash FROM checkpoint_heads h
        WHERE tenant = ? AND checkpoint_seq = (
          SELECT max(checkpoint_seq) FROM checkpoint_heads m
           WHERE m.tenant = h.tenant AND m.run_id = h.run_id AND m.checkpoint_seq <= ?)
          AND ${AFTER}
        ORDER BY created_at, run_id LIMIT ?`,
    );
    this.latest = db.prepare(
      `SELECT run_id, created_at, head_seq, head_hash FROM checkpoint_latest WHERE tenant = ? AND ${AFTER}
        ORDER BY created_at, run_id LIMIT ?`,
    );
    this.rows = db.prepare(
      `SELECT run_id, created_at, head_seq, head_hash, checkpoint_seq FROM checkpoint_heads
        WHERE tenant = ? AND (? IS NULL OR run_id > ? OR (run_id = ? AND checkpoint_seq > ?))
        ORDER BY run_id, checkpoint_seq LIMIT ?`,
    );
    this.one = db.prepare('SELECT * FROM checkpoints WHERE tenant = ? AND seq = ?');
    this.runLast = db.prepare(
      `SELECT run_id, created_at, head_seq, head_hash, checkpoint_seq FROM checkpoint_heads
        WHERE tenant = ? AND run_id = ? ORDER BY checkpoint_seq DESC LIMIT 1`,
    );
    this.log = db.prepare(
      `SELECT run_id, created_at, head_seq, head_hash, checkpoint_seq FROM checkpoint_heads
        WHERE tenant = ? AND (? IS NULL OR checkpoint_seq > ? OR (checkpoint_seq = ? AND (created_at > ? OR (created_at = ? AND run_id > ?))))
        ORDER BY checkpoint_seq, created_at, run_id LIMIT ?`,
    );
    const insert = db.prepare(
      `INSERT INTO checkpoints (tenant, seq, at, runs, root, prev_hash, key_id, public_key, signature, hash, root_signature, tree_size, log_root, log_frontier)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertHead = db.prepare(
      `INSERT INTO checkpoint_heads (tenant, checkpoint_seq, created_at, run_id, head_seq, head_hash)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const putLatest = db.prepare(
      `INSERT OR REPLACE INTO checkpoint_latest (tenant, checkpoint_seq, created_at, run_id, head_seq, head_hash)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.append = db.transaction((c: Checkpoint, changed: readonly CheckpointHead[]) => {
      assertFollows(c, this.last.get(c.tenant) as Row | undefined);
      insert.run(
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
      );
      for (const h of changed) {
        insertHead.run(c.tenant, c.seq, h.createdAt, h.runId, h.seq, h.hash);
        putLatest.run(c.tenant, c.seq, h.createdAt, h.runId, h.seq, h.hash);
      }
    }).immediate;
  }

  async appendCheckpoint(c: Checkpoint, changed: readonly CheckpointHead[]): Promise<void> {
    this.append(c, changed);
    this.h.commits++;
  }

  async listCheckpoints(tenant: string): Promise<Checkpoint[]> {
    return (this.all.all(tenant) as Row[]).map(toCheckpoint);
  }

  async getCheckpoint(tenant: string, seq: number): Promise<Checkpoint | undefined> {
    const row = this.one.get(tenant, seq) as Row | undefined;
    return row ? toCheckpoint(row) : undefined;
  }

  async checkpointedHead(tenant: string, runId: string): Promise<CheckpointHeadRow | undefined> {
    const row = this.runLast.get(tenant, runId) as Row | undefined;
    return row ? toHeadRow(row) : undefined;
  }

  async checkpointLog(tenant: string, o: { after?: LogCursor; limit: number }): Promise<CheckpointHeadRow[]> {
    const a = o.after;
    const s = a?.checkpointSeq ?? null;
    const c = a?.createdAt ?? null;
    return (this.log.all(tenant, s, s, s, c, c, a?.runId ?? null, o.limit) as Row[]).map(toHeadRow);
  }

  async retainedHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return this.retention.heads(tenant, o);
  }

  async getRetainedRun(tenant: string, runId: string): Promise<RetainedRun | undefined> {
    return this.retention.get(tenant, runId);
  }

  /** Whether any tenant's run of this id was retained (an append never creates it again). */
  isRetained(runId: string): boolean {
    return this.retention.isRetained(runId);
  }

  async retainRuns(
    tenant: string,
    runs: readonly { readonly runId: string; readonly head: Head }[],
    manifestDigest: string,
    at: string,
  ): Promise<{ removed: string[]; skipped: { runId: string; reason: string }[] }> {
    return this.retention.retain(tenant, runs, manifestDigest, at);
  }

  async tenantsWithRuns(): Promise<string[]> {
    return this.tenants.all() as string[];
  }

  async runHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return (this.heads.all(tenant, ...afterParams(o.after), o.limit) as Row[]).map(toHead);
  }

  /** As of the last checkpoint, from checkpoint_latest (a scan in order); of an earlier one, from the history. */
  async checkpointedHeads(
    tenant: string,
    seq: number,
    o: { after?: HeadCursor; limit: number },
  ): Promise<CheckpointHead[]> {
    const last = Number((this.last.get(tenant) as Row | undefined)?.seq ?? 0);
    const rows =
      seq >= last
        ? this.latest.all(tenant, ...afterParams(o.after), o.limit)
        : this.asOf.all(tenant, seq, ...afterParams(o.after), o.limit);
    return (rows as Row[]).map(toHead);
  }

  async checkpointHeadRows(
    tenant: string,
    o: { after?: { runId: string; checkpointSeq: number }; limit: number },
  ): Promise<CheckpointHeadRow[]> {
    const a = o.after;
    return (
      this.rows.all(
        tenant,
        a?.runId ?? null,
        a?.runId ?? null,
        a?.runId ?? null,
        a?.checkpointSeq ?? 0,
        o.limit,
      ) as Row[]
    ).map(toHeadRow);
  }
}
