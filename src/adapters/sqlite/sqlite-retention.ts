/**
 * Retention in the SQLite file (schema v12): removing whole finished runs that a verified export
 * holds and the last checkpoint covers, keeping a retained_runs row per run so the checkpoint
 * chain goes on covering its head. Each run goes in one transaction with its row; a blob goes
 * when no run of its tenant references it any more. It never removes a run that moved, is not
 * finished, or is not covered, and never touches checkpoints.
 */
import type Database from 'better-sqlite3';
import type { Head } from '../../core/ledger/index.ts';
import type { CheckpointHead, HeadCursor, RetainedRun } from '../../ports/index.ts';
import { retentionRefusalOf, toHead, toRetainedRun } from '../shared/checkpoint-rows.ts';
import type { Row } from '../shared/row.ts';

const AFTER = '(? IS NULL OR created_at > ? OR (created_at = ? AND run_id > ?))';
const after = (a: HeadCursor | undefined) => [
  a?.createdAt ?? null,
  a?.createdAt ?? null,
  a?.createdAt ?? null,
  a?.runId ?? null,
];

export class SqliteRetention {
  private readonly st;
  private readonly removeOne: (
    tenant: string,
    runId: string,
    head: Head,
    manifest: string,
    at: string,
  ) => string | undefined;

  constructor(db: Database.Database) {
    this.st = {
      run: db.prepare('SELECT * FROM runs WHERE run_id = ? AND tenant = ?'),
      covered: db.prepare(
        'SELECT head_seq, head_hash FROM checkpoint_latest WHERE tenant = ? AND created_at = ? AND run_id = ?',
      ),
      keep: db.prepare(
        `INSERT INTO retained_runs (run_id, tenant, created_at, workflow_id, version, status, head_seq, head_hash, manifest_digest, retained_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      blobsOf: db.prepare('SELECT hash FROM run_blobs WHERE run_key = ?').pluck(),
      dropLinks: db.prepare('DELETE FROM run_blobs WHERE run_key = ?'),
      dropBlob: db.prepare(
        `DELETE FROM blobs WHERE tenant = ? AND hash = ? AND NOT EXISTS (
           SELECT 1 FROM run_blobs rb JOIN runs r ON r.run_key = rb.run_key WHERE rb.hash = ? AND r.tenant = ?)`,
      ),
      dropApprovals: db.prepare('DELETE FROM approvals WHERE run_id = ?'),
      dropEntries: db.prepare('DELETE FROM entries WHERE run_key = ?'),
      dropRun: db.prepare('DELETE FROM runs WHERE run_key = ?'),
      get: db.prepare('SELECT * FROM retained_runs WHERE run_id = ? AND tenant = ?'),
      isRetained: db.prepare('SELECT 1 FROM retained_runs WHERE run_id = ?').pluck(),
      heads: db.prepare(
        `SELECT run_id, created_at, head_seq, head_hash FROM retained_runs WHERE tenant = ? AND ${AFTER}
          ORDER BY created_at, run_id LIMIT ?`,
      ),
    };
    this.removeOne = db.transaction(
      (tenant: string, runId: string, head: Head, manifest: string, at: string) => {
        const row = this.st.run.get(runId, tenant) as Row | undefined;
        const covered = row
          ? (this.st.covered.get(tenant, row.created_at, runId) as Row | undefined)
          : undefined;
        const refusal = retentionRefusalOf(row, head, covered);
        if (refusal) return refusal;
        const r = row!;
        this.st.keep.run(
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
        );
        const blobs = this.st.blobsOf.all(r.run_key) as string[];
        this.st.dropLinks.run(r.run_key);
        for (const hash of blobs) this.st.dropBlob.run(tenant, hash, hash, tenant);
        this.st.dropApprovals.run(runId);
        this.st.dropEntries.run(r.run_key);
        this.st.dropRun.run(r.run_key);
        return undefined;
      },
    );
  }

  retain(tenant: string, runs: readonly { runId: string; head: Head }[], manifest: string, at: string) {
    const removed: string[] = [];
    const skipped: { runId: string; reason: string }[] = [];
    for (const r of runs) {
      const reason = this.removeOne(tenant, r.runId, r.head, manifest, at);
      if (reason) skipped.push({ runId: r.runId, reason });
      else removed.push(r.runId);
    }
    return { removed, skipped };
  }

  get(tenant: string, runId: string): RetainedRun | undefined {
    const row = this.st.get.get(runId, tenant) as Row | undefined;
    return row ? toRetainedRun(row) : undefined;
  }

  /** Whether any tenant's run of this id was retained (ids are global, as in the runs table). */
  isRetained(runId: string): boolean {
    return this.st.isRetained.get(runId) !== undefined;
  }

  heads(tenant: string, o: { after?: HeadCursor; limit: number }): CheckpointHead[] {
    return (this.st.heads.all(tenant, ...after(o.after), o.limit) as Row[]).map(toHead);
  }
}
