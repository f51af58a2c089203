/**
 * Lifecycle evidence in the SQLite file: shadow comparisons kept once per shadow run (in the
 * group commit with the appends around them: no transaction of their own) and the skipped shadow
 * runs older Keels counted.
 */
import type { Evidence, ShadowSkip, StoredComparison } from '../../ports/index.ts';
import {
  comparisonValues,
  LIFECYCLE_SQL,
  skipValues,
  toComparison,
  toSkipCounts,
} from '../shared/lifecycle-rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';
import type { SqliteHandle } from './sqlite-handle.ts';

export class SqliteEvidence implements Evidence {
  private readonly st: BoundStatements<keyof typeof LIFECYCLE_SQL>;

  constructor(private readonly h: SqliteHandle) {
    this.st = boundStatements(h.db, LIFECYCLE_SQL);
  }

  /** Kept in the next group commit with the appends around it: no transaction of its own. */
  putComparison(c: StoredComparison): Promise<boolean> {
    return this.h.queued(() => this.st.run('putComparison', comparisonValues(c)).changes === 1);
  }

  async listComparisons(
    tenant: string,
    workflowId: string,
    shadowVersion: number,
    o: { since?: string } = {},
  ): Promise<StoredComparison[]> {
    const values = [tenant, workflowId, shadowVersion, o.since ?? ''];
    return this.st.all('comparisons', values).map(toComparison);
  }

  async recordShadowSkip(skip: ShadowSkip): Promise<void> {
    this.st.run('putSkip', skipValues(skip));
    this.h.commits++;
  }

  async shadowSkips(
    tenant: string,
    workflowId: string,
    version: number,
    since?: string,
  ): Promise<{ liveVersion: number | null; count: number }[]> {
    return toSkipCounts(this.st.all('skipsByLiveVersion', [tenant, workflowId, version, since ?? '']));
  }
}
