/**
 * The registry in the SQLite file: published versions (a version stored again with other content
 * is refused), lifecycle records appended to their workflow's hash chain with the status changes
 * and rollout state they carry (one IMMEDIATE transaction, all or nothing), and rollouts.
 */
import type Database from 'better-sqlite3';
import { chainHead } from '../../core/lifecycle/index.ts';
import type {
  LifecycleChange,
  NewPromotion,
  Promotion,
  Registry,
  StoredRollout,
  VersionRecord,
} from '../../ports/index.ts';
import { checkIntArg } from '../shared/int-args.ts';
import {
  chainAfter,
  LIFECYCLE_SQL,
  PROMOTION_COLUMNS,
  promotionValues,
  rolloutMoved,
  statusMoved,
  toPromotionRecord,
  toRollout,
} from '../shared/lifecycle-rows.ts';
import type { Row } from '../shared/row.ts';
import { samePublishedVersion, toVersion } from '../shared/rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';
import type { SqliteHandle } from './sqlite-handle.ts';

export class SqliteRegistry implements Registry {
  private readonly st;
  private readonly lifecycle: BoundStatements<keyof typeof LIFECYCLE_SQL>;
  private readonly record: (change: LifecycleChange) => Promotion[];

  constructor(private readonly h: SqliteHandle) {
    const db: Database.Database = h.db;
    this.st = {
      insertVersion: db.prepare(
        `INSERT INTO workflow_versions (tenant, workflow_id, version, spec_hash, spec, status, published_at, published_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      getVersion: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? AND workflow_id = ? AND version = ?',
      ),
      latestVersion: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? AND workflow_id = ? ORDER BY version DESC LIMIT 1',
      ),
      versionsOf: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? AND workflow_id = ? ORDER BY version',
      ),
      routableTenants: db.prepare(
        "SELECT DISTINCT tenant FROM workflow_versions WHERE status IN ('LIVE', 'AUTONOMOUS') ORDER BY tenant",
      ),
      versionsAll: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? ORDER BY workflow_id, version',
      ),
      insertPromotion: db.prepare(
        `INSERT INTO promotions (tenant, workflow_id, version, from_status, to_status, by, at, ${PROMOTION_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      promotions: db.prepare(
        'SELECT *, by AS promoted_by FROM promotions WHERE tenant = ? AND workflow_id = ? ORDER BY id',
      ),
    };
    this.lifecycle = boundStatements(db, LIFECYCLE_SQL);
    this.record = db.transaction((change: LifecycleChange) => this.apply(change)).immediate;
  }

  async putVersion(rec: VersionRecord): Promise<{ created: boolean; record: VersionRecord }> {
    checkIntArg('version', rec.version);
    const r = this.st.insertVersion.run(
      rec.tenant,
      rec.workflowId,
      rec.version,
      rec.specHash,
      JSON.stringify(rec.spec),
      rec.status,
      rec.publishedAt,
      rec.publishedBy,
    );
    if (r.changes === 1) return { created: true, record: rec };
    const existing = await this.getVersion(rec.tenant, rec.workflowId, rec.version);
    return { created: false, record: samePublishedVersion(rec, existing) };
  }

  async getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined> {
    checkIntArg('version', version);
    const row = (
      version === undefined
        ? this.st.latestVersion.get(tenant, workflowId)
        : this.st.getVersion.get(tenant, workflowId, version)
    ) as Row | undefined;
    return row ? toVersion(row) : undefined;
  }

  async listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]> {
    const rows = (
      workflowId === undefined ? this.st.versionsAll.all(tenant) : this.st.versionsOf.all(tenant, workflowId)
    ) as Row[];
    return rows.map(toVersion);
  }

  async routableTenants(): Promise<string[]> {
    return (this.st.routableTenants.all() as Row[]).map((r) => String(r.tenant));
  }

  async setVersionStatus(p: NewPromotion): Promise<void> {
    await this.recordLifecycle({ tenant: p.tenant, workflowId: p.workflowId, records: [p] });
  }

  async listPromotions(tenant: string, workflowId: string): Promise<Promotion[]> {
    return this.list(tenant, workflowId);
  }

  private list(tenant: string, workflowId: string): Promotion[] {
    return (this.st.promotions.all(tenant, workflowId) as Row[]).map(toPromotionRecord);
  }

  async recordLifecycle(change: LifecycleChange): Promise<Promotion[]> {
    const records = this.record(change);
    this.h.commits++;
    return records;
  }

  private apply(change: LifecycleChange): Promotion[] {
    const { tenant, workflowId } = change;
    const last = this.lifecycle.all('lastPromotion', [tenant, workflowId])[0];
    // Records from before the chain have no stored hash: the head is computed over all of them.
    const head =
      last === undefined
        ? chainHead([])
        : typeof last.hash === 'string'
          ? last.hash
          : chainHead(this.list(tenant, workflowId));
    const records = chainAfter(head, change.records);
    for (const p of records) {
      if (this.lifecycle.run('setStatus', [p.to, tenant, workflowId, p.version, p.from]).changes === 0)
        throw statusMoved(p);
      this.st.insertPromotion.run(
        tenant,
        workflowId,
        p.version,
        p.from,
        p.to,
        p.by,
        p.at,
        ...promotionValues(p),
      );
    }
    const r = change.rollout;
    if (r) {
      const state = JSON.stringify(r.state);
      const done =
        r.expectedRev === null
          ? this.lifecycle.run('insertRollout', [tenant, workflowId, state]).changes
          : this.lifecycle.run('updateRollout', [tenant, workflowId, state, r.expectedRev]).changes;
      if (done === 0) throw rolloutMoved(workflowId);
    }
    return records;
  }

  async getRollout(tenant: string, workflowId: string): Promise<StoredRollout | undefined> {
    const row = this.lifecycle.all('getRollout', [tenant, workflowId])[0];
    return row ? toRollout(row) : undefined;
  }
}
