/**
 * The run index in the SQLite file: run rows and pending approvals (written by the ledger's
 * appends, sqlite-ledger.ts), listed newest first with a cursor, counted per status, and the tally
 * of a version's live runs in a window (shared/live-run-tally.ts).
 */
import type Database from 'better-sqlite3';
import type { RunStatus } from '../../core/ledger/index.ts';
import type {
  LiveRunTally,
  LiveRunWindow,
  PendingApproval,
  RunCount,
  RunFilter,
  RunIndex,
  RunPage,
  RunRecord,
} from '../../ports/index.ts';
import { checkIntArg } from '../shared/int-args.ts';
import { modeFilter } from '../shared/lifecycle-rows.ts';
import {
  liveRunTallySql,
  liveRunTallyValues,
  SQLITE_PAYLOAD_FIELD,
  toLiveRunTally,
} from '../shared/live-run-tally.ts';
import type { Row } from '../shared/row.ts';
import { decodeCursor, encodeCursor, RUN_COLUMNS, toApproval, toRun } from '../shared/rows.ts';
import { searchFilter } from '../shared/run-search-rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';

/**
 * The statement listing a page of runs (one more than `limit`, to know whether another follows),
 * newest first, keyset-paged by (created_at, run_id) after the cursor: never OFFSET, so a page deep
 * in the past (a jump to a date, `until`) costs what the first does. Exported for the query-plan test.
 */
export function runListQuery(
  tenant: string,
  filter: RunFilter,
  limit: number,
): { sql: string; params: unknown[] } {
  checkIntArg('version', filter.version);
  // A run id search reads the run id index (a few rows, then sorted): `+tenant` keeps the planner
  // from walking the tenant's whole listing index instead to save that sort.
  const where = [filter.runId !== undefined ? '+tenant = ?' : 'tenant = ?'];
  const params: unknown[] = [tenant];
  const bind = (v: unknown) => {
    params.push(v);
    return '?';
  };
  if (filter.status) where.push(`status = ${bind(filter.status)}`);
  if (filter.workflowId) where.push(`workflow_id = ${bind(filter.workflowId)}`);
  where.push(...modeFilter(filter, bind), ...searchFilter(filter, bind));
  if (filter.cursor) {
    const [createdAt, runId] = decodeCursor(filter.cursor);
    where.push(
      `(created_at < ${bind(createdAt)} OR (created_at = ${bind(createdAt)} AND run_id < ${bind(runId)}))`,
    );
  }
  params.push(limit + 1);
  return {
    sql: `SELECT * FROM runs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, run_id DESC LIMIT ?`,
    params,
  };
}

export class SqliteRunIndex implements RunIndex {
  private readonly st;
  private readonly tally: BoundStatements<'counts' | 'runIds' | 'deniedRunIds'>;

  constructor(private readonly db: Database.Database) {
    this.st = {
      // The record's columns only (as on PostgreSQL): the lease and wait columns cost ~2 µs a read.
      getRun: db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = ? AND tenant = ?`),
      approvalsByTenant: db.prepare('SELECT * FROM approvals WHERE tenant = ? ORDER BY requested_at, run_id'),
      // By the primary key (run_id first): the planner would otherwise walk the tenant's whole
      // approvals index for its order, which every action on a run pays (run-evidence.ts).
      approvalsByRun: db.prepare(
        'SELECT * FROM approvals WHERE run_id = ? AND +tenant = ? ORDER BY requested_at',
      ),
    };
    this.tally = boundStatements(db, liveRunTallySql(SQLITE_PAYLOAD_FIELD));
  }

  async getRun(tenant: string, runId: string): Promise<RunRecord | undefined> {
    const row = this.st.getRun.get(runId, tenant) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  async listRuns(tenant: string, filter: RunFilter = {}): Promise<RunPage> {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    const q = runListQuery(tenant, filter, limit);
    const rows = this.db.prepare(q.sql).all(...q.params) as Row[];
    const runs = rows.slice(0, limit).map(toRun);
    const lastRun = runs[runs.length - 1];
    return rows.length > limit && lastRun
      ? { runs, next: encodeCursor(lastRun.createdAt, lastRun.runId) }
      : { runs };
  }

  async listPendingApprovals(tenant: string, runId?: string): Promise<PendingApproval[]> {
    const rows = (
      runId === undefined ? this.st.approvalsByTenant.all(tenant) : this.st.approvalsByRun.all(runId, tenant)
    ) as Row[];
    return rows.map(toApproval);
  }

  async countRuns(tenant: string, c: RunCount): Promise<Partial<Record<RunStatus, number>>> {
    checkIntArg('version', c.version);
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

  /** The three statements in one transaction: the counts and the examples are one snapshot. */
  async tallyLiveRuns(tenant: string, w: LiveRunWindow): Promise<LiveRunTally> {
    const values = liveRunTallyValues(tenant, w);
    return this.db.transaction(() =>
      toLiveRunTally(
        this.tally.all('counts', values)[0] ?? {},
        this.tally.all('runIds', values),
        this.tally.all('deniedRunIds', values),
      ),
    )();
  }
}
