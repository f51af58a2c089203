/**
 * The registry in PostgreSQL: published versions (a version stored again with other content is
 * refused), lifecycle records appended to their workflow's chain with the status changes and
 * rollout state they carry (one transaction, lifecycle.ts), and rollouts.
 */
import type {
  LifecycleChange,
  NewPromotion,
  Promotion,
  Registry,
  StoredRollout,
  VersionRecord,
} from '../../ports/index.ts';
import { checkIntArg } from '../shared/int-args.ts';
import { LIFECYCLE_SQL, toPromotionRecord, toRollout } from '../shared/lifecycle-rows.ts';
import { samePublishedVersion, toVersion } from '../shared/rows.ts';
import { PROMOTIONS_SQL, recordLifecycle } from './lifecycle.ts';
import type { PostgresHandle } from './postgres-handle.ts';
import { SQL } from './queries.ts';

export class PostgresRegistry implements Registry {
  constructor(private readonly h: PostgresHandle) {}

  async putVersion(rec: VersionRecord): Promise<{ created: boolean; record: VersionRecord }> {
    checkIntArg('version', rec.version);
    const r = await this.h.query(SQL.insertVersion, [
      rec.tenant,
      rec.workflowId,
      rec.version,
      rec.specHash,
      JSON.stringify(rec.spec),
      rec.status,
      rec.publishedAt,
      rec.publishedBy,
    ]);
    if (r.rowCount === 1) {
      this.h.commits++;
      return { created: true, record: rec };
    }
    const existing = await this.getVersion(rec.tenant, rec.workflowId, rec.version);
    return { created: false, record: samePublishedVersion(rec, existing) };
  }

  async getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined> {
    checkIntArg('version', version);
    const r =
      version === undefined
        ? await this.h.query({
            name: 'keel_latest_version',
            text: SQL.latestVersion,
            values: [tenant, workflowId],
          })
        : await this.h.query({
            name: 'keel_get_version',
            text: SQL.getVersion,
            values: [tenant, workflowId, version],
          });
    return r.rows[0] ? toVersion(r.rows[0]) : undefined;
  }

  async listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]> {
    const r =
      workflowId === undefined
        ? await this.h.query(SQL.versionsAll, [tenant])
        : await this.h.query(SQL.versionsOf, [tenant, workflowId]);
    return r.rows.map(toVersion);
  }

  async routableTenants(): Promise<string[]> {
    return (await this.h.query(SQL.routableTenants, [])).rows.map((r) => String(r.tenant));
  }

  async setVersionStatus(p: NewPromotion): Promise<void> {
    await this.recordLifecycle({ tenant: p.tenant, workflowId: p.workflowId, records: [p] });
  }

  async listPromotions(tenant: string, workflowId: string): Promise<Promotion[]> {
    return (await this.h.query(PROMOTIONS_SQL, [tenant, workflowId])).rows.map(toPromotionRecord);
  }

  recordLifecycle(change: LifecycleChange): Promise<Promotion[]> {
    return this.h.withTransaction('recording a lifecycle change', (client) =>
      recordLifecycle(client, change),
    );
  }

  async getRollout(tenant: string, workflowId: string): Promise<StoredRollout | undefined> {
    const row = (await this.h.query(LIFECYCLE_SQL.getRollout, [tenant, workflowId])).rows[0];
    return row ? toRollout(row) : undefined;
  }
}
