/**
 * Lifecycle evidence in PostgreSQL: shadow comparisons kept once per shadow run and the skipped
 * shadow runs older Keels counted; each write one statement.
 */
import type { Evidence, ShadowSkip, StoredComparison } from '../../ports/index.ts';
import {
  comparisonValues,
  LIFECYCLE_SQL,
  skipValues,
  toComparison,
  toSkipCounts,
} from '../shared/lifecycle-rows.ts';
import type { PostgresHandle } from './postgres-handle.ts';

export class PostgresEvidence implements Evidence {
  constructor(private readonly h: PostgresHandle) {}

  async putComparison(c: StoredComparison): Promise<boolean> {
    return (
      (await this.h.write('keel_put_comparison', LIFECYCLE_SQL.putComparison, comparisonValues(c)))
        .rowCount === 1
    );
  }

  async listComparisons(
    tenant: string,
    workflowId: string,
    shadowVersion: number,
    o: { since?: string } = {},
  ): Promise<StoredComparison[]> {
    const values = [tenant, workflowId, shadowVersion, o.since ?? ''];
    return (await this.h.query(LIFECYCLE_SQL.comparisons, values)).rows.map(toComparison);
  }

  async recordShadowSkip(skip: ShadowSkip): Promise<void> {
    await this.h.write('keel_put_shadow_skip', LIFECYCLE_SQL.putSkip, skipValues(skip));
  }

  async shadowSkips(
    tenant: string,
    workflowId: string,
    version: number,
    since?: string,
  ): Promise<{ liveVersion: number | null; count: number }[]> {
    const values = [tenant, workflowId, version, since ?? ''];
    return toSkipCounts((await this.h.query(LIFECYCLE_SQL.skipsByLiveVersion, values)).rows);
  }
}
