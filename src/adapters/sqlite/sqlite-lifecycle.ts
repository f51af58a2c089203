/**
 * The lifecycle in the SQLite file: lifecycle records appended to their workflow's hash chain with
 * the status changes and rollout state they carry (one IMMEDIATE transaction, all or nothing),
 * shadow comparisons kept once, skipped shadow runs counted, run counts per status, and the tally
 * of a version's live runs in a window (shared/live-run-tally.ts).
 */
import type Database from 'better-sqlite3';
import { chainHead } from '../../core/lifecycle/index.ts';
import type {
  LifecycleChange,
  LiveRunTally,
  LiveRunWindow,
  Promotion,
  RunCount,
  ShadowSkip,
  StoredComparison,
  StoredRollout,
} from '../../ports/index.ts';
import {
  chainAfter,
  comparisonValues,
  LIFECYCLE_SQL,
  modeFilter,
  PROMOTION_COLUMNS,
  promotionValues,
  rolloutMoved,
  skipValues,
  statusMoved,
  toComparison,
  toPromotionRecord,
  toRollout,
  toSkipCounts,
} from '../shared/lifecycle-rows.ts';
import {
  liveRunTallySql,
  liveRunTallyValues,
  SQLITE_PAYLOAD_FIELD,
  toLiveRunTally,
} from '../shared/live-run-tally.ts';
import type { Row } from '../shared/rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';

export class SqliteLifecycle {
  private readonly st: BoundStatements<keyof typeof LIFECYCLE_SQL>;
  private readonly tally: BoundStatements<'counts' | 'runIds' | 'deniedRunIds'>;
  private readonly insertPromotion: Database.Statement;
  private readonly promotions: Database.Statement;
  readonly record: (change: LifecycleChange) => Promotion[];

  constructor(private readonly db: Database.Database) {
    this.st = boundStatements(db, LIFECYCLE_SQL);
    this.tally = boundStatements(db, liveRunTallySql(SQLITE_PAYLOAD_FIELD));
    this.insertPromotion = db.prepare(
      `INSERT INTO promotions (tenant, workflow_id, version, from_status, to_status, by, at, ${PROMOTION_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.promotions = db.prepare(
      'SELECT *, by AS promoted_by FROM promotions WHERE tenant = ? AND workflow_id = ? ORDER BY id',
    );
    this.record = db.transaction((change: LifecycleChange) => this.apply(change)).immediate;
  }

  list(tenant: string, workflowId: string): Promotion[] {
    return (this.promotions.all(tenant, workflowId) as Row[]).map(toPromotionRecord);
  }

  private apply(change: LifecycleChange): Promotion[] {
    const { tenant, workflowId } = change;
    const last = this.st.all('lastPromotion', [tenant, workflowId])[0];
    // Records from before the chain have no stored hash: the head is computed over all of them.
    const head =
      last === undefined
        ? chainHead([])
        : typeof last.hash === 'string'
          ? last.hash
          : chainHead(this.list(tenant, workflowId));
    const records = chainAfter(head, change.records);
    for (const p of records) {
      if (this.st.run('setStatus', [p.to, tenant, workflowId, p.version, p.from]).changes === 0)
        throw statusMoved(p);
      this.insertPromotion.run(
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
          ? this.st.run('insertRollout', [tenant, workflowId, state]).changes
          : this.st.run('updateRollout', [tenant, workflowId, state, r.expectedRev]).changes;
      if (done === 0) throw rolloutMoved(workflowId);
    }
    return records;
  }

  rollout(tenant: string, workflowId: string): StoredRollout | undefined {
    const row = this.st.all('getRollout', [tenant, workflowId])[0];
    return row ? toRollout(row) : undefined;
  }

  putComparison(c: StoredComparison): boolean {
    return this.st.run('putComparison', comparisonValues(c)).changes === 1;
  }

  comparisons(tenant: string, workflowId: string, version: number, since = ''): StoredComparison[] {
    return this.st.all('comparisons', [tenant, workflowId, version, since]).map(toComparison);
  }

  recordSkip(s: ShadowSkip): void {
    this.st.run('putSkip', skipValues(s));
  }

  skips(tenant: string, workflowId: string, version: number, since = '') {
    return toSkipCounts(this.st.all('skipsByLiveVersion', [tenant, workflowId, version, since]));
  }

  /** The three statements in one transaction: the counts and the examples are one snapshot. */
  tallyLiveRuns(tenant: string, w: LiveRunWindow): LiveRunTally {
    const values = liveRunTallyValues(tenant, w);
    return this.db.transaction(() =>
      toLiveRunTally(
        this.tally.all('counts', values)[0] ?? {},
        this.tally.all('runIds', values),
        this.tally.all('deniedRunIds', values),
      ),
    )();
  }

  countRuns(tenant: string, c: RunCount): Record<string, number> {
    const values: unknown[] = [tenant];
    const bind = (v: unknown) => {
      values.push(v);
      return '?';
    };
    const where = ['tenant = ?', ...modeFilter(c, bind, { workflowAndStatus: true })];
    const rows = this.db
      .prepare(`SELECT status, count(*) AS n FROM runs WHERE ${where.join(' AND ')} GROUP BY status`)
      .all(...values) as Row[];
    return Object.fromEntries(rows.map((r) => [r.status as string, Number(r.n)]));
  }
}
