/**
 * The run index in PostgreSQL: run rows and pending approvals (written by the ledger's append
 * statement), listed newest first with a cursor, counted per status, and the tally of a version's
 * live runs in a window (shared/live-run-tally.ts). Every statement is tenant-scoped.
 */
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
import { liveRunTallyValues, toLiveRunTally } from '../shared/live-run-tally.ts';
import { decodeCursor, encodeCursor, RUN_COLUMNS, toApproval, toRun } from '../shared/rows.ts';
import { searchFilter } from '../shared/run-search-rows.ts';
import { countRunsQuery, LIVE_RUN_TALLY_SQL } from './lifecycle.ts';
import type { PostgresHandle } from './postgres-handle.ts';
import { SQL } from './queries.ts';

/**
 * The statement listing a page of runs (one more than `limit`, to know whether another follows),
 * newest first, keyset-paged by (created_at, run_id) after the cursor: never OFFSET, so a page deep
 * in the past (a jump to a date, `until`) costs what the first does. Exported for the query-plan test.
 */
export function runListQuery(
  tenant: string,
  filter: RunFilter,
  limit: number,
): { text: string; values: unknown[] } {
  checkIntArg('version', filter.version);
  const values: unknown[] = [tenant];
  const bind = (v: unknown) => `$${values.push(v)}`;
  const where = ['tenant = $1'];
  if (filter.status) where.push(`status = ${bind(filter.status)}`);
  if (filter.workflowId) where.push(`workflow_id = ${bind(filter.workflowId)}`);
  where.push(...modeFilter(filter, bind), ...searchFilter(filter, bind));
  if (filter.cursor) {
    const [createdAt, runId] = decodeCursor(filter.cursor);
    where.push(`(created_at, run_id) < (${bind(createdAt)}, ${bind(runId)})`);
  }
  return {
    text: `SELECT ${RUN_COLUMNS} FROM runs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, run_id DESC LIMIT ${bind(limit + 1)}`,
    values,
  };
}

export class PostgresRunIndex implements RunIndex {
  constructor(private readonly h: PostgresHandle) {}

  async getRun(tenant: string, runId: string): Promise<RunRecord | undefined> {
    const r = await this.h.query({ name: 'keel_get_run', text: SQL.getRun, values: [runId, tenant] });
    return r.rows[0] ? toRun(r.rows[0]) : undefined;
  }

  async listRuns(tenant: string, filter: RunFilter = {}): Promise<RunPage> {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    const q = runListQuery(tenant, filter, limit);
    const { rows } = await this.h.query(q.text, q.values);
    const runs = rows.slice(0, limit).map(toRun);
    const lastRun = runs[runs.length - 1];
    return rows.length > limit && lastRun
      ? { runs, next: encodeCursor(lastRun.createdAt, lastRun.runId) }
      : { runs };
  }

  async listPendingApprovals(tenant: string, runId?: string): Promise<PendingApproval[]> {
    const r =
      runId === undefined
        ? await this.h.query({ name: 'keel_approvals_all', text: SQL.approvalsByTenant, values: [tenant] })
        : await this.h.query({
            name: 'keel_approvals_run',
            text: SQL.approvalsByRun,
            values: [tenant, runId],
          });
    return r.rows.map(toApproval);
  }

  async countRuns(tenant: string, c: RunCount): Promise<Partial<Record<RunStatus, number>>> {
    checkIntArg('version', c.version);
    const q = countRunsQuery(tenant, c);
    const rows = (await this.h.query(q.text, q.values)).rows;
    return Object.fromEntries(rows.map((r) => [r.status as string, Number(r.n)]));
  }

  /** The counts are one statement's snapshot; the example ids, read after, are examples only. */
  async tallyLiveRuns(tenant: string, w: LiveRunWindow): Promise<LiveRunTally> {
    const values = liveRunTallyValues(tenant, w);
    const counts = (await this.h.query(LIVE_RUN_TALLY_SQL.counts, values.slice(0, 4))).rows[0] ?? {};
    const runIds = (await this.h.query(LIVE_RUN_TALLY_SQL.runIds, values)).rows;
    const denied = (await this.h.query(LIVE_RUN_TALLY_SQL.deniedRunIds, values)).rows;
    return toLiveRunTally(counts, runIds, denied);
  }
}
