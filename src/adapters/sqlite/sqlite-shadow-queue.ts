/**
 * The shadow queue in the SQLite file (docs/lifecycle.md, "The shadow queue"): items queued with
 * the append that starts their live run (`insert`, inside that append's savepoint) or on their own,
 * claimed under leases in the round robin of shadow-queue-rows.ts, deleted when done. Every write
 * rides the group commit with the appends around it (sqlite-handle.ts, one transaction each), so a
 * claim reads and leases at once.
 */
import type Database from 'better-sqlite3';
import type {
  ClaimedShadowWork,
  ShadowClaimScope,
  ShadowGroup,
  ShadowQueue,
  ShadowQueueStatus,
  ShadowWork,
} from '../../ports/index.ts';
import { checkShadowClaimScope } from '../shared/check-claim-scope.ts';
import type { Row } from '../shared/row.ts';
import {
  groupsInTurn,
  headsPerGroup,
  roundRobin,
  SHADOW_QUEUE_SQL,
  toClaimedWork,
  toQueueStatus,
  workValues,
} from '../shared/shadow-queue-rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';
import type { SqliteHandle } from './sqlite-handle.ts';

/** What a claim may take: no live lease (or one of a gone owner), within the scope. `?`s: see `claimable`. */
const CLAIMABLE = `failed_ms IS NULL AND (lease_until IS NULL OR lease_until < ? OR lease_owner IN (SELECT value FROM json_each(?)))
  AND (? IS NULL OR tenant = ?)
  AND (? IS NULL OR id IN (SELECT value FROM json_each(?)))
  AND tenant NOT IN (SELECT value FROM json_each(?))`;

export class SqliteShadowQueue implements ShadowQueue {
  private readonly st: BoundStatements<keyof typeof SHADOW_QUEUE_SQL>;
  private readonly groups: Database.Statement;
  private readonly heads: Database.Statement;

  constructor(private readonly h: SqliteHandle) {
    const db: Database.Database = h.db;
    this.st = boundStatements(db, SHADOW_QUEUE_SQL);
    this.groups = db.prepare(
      `SELECT DISTINCT tenant, workflow_id, version FROM shadow_queue WHERE ${CLAIMABLE}`,
    );
    this.heads = db.prepare(
      `SELECT * FROM shadow_queue WHERE tenant = ? AND workflow_id = ? AND version = ? AND ${CLAIMABLE}
        ORDER BY seq LIMIT ?`,
    );
  }

  /** Queues items (an item already queued is kept as is); how many were new. Inside a write transaction. */
  insert(items: readonly ShadowWork[]): number {
    let n = 0;
    for (const w of items) n += this.st.run('enqueue', workValues(w)).changes;
    return n;
  }

  enqueueShadowWork(items: readonly ShadowWork[]): Promise<number> {
    return items.length === 0 ? Promise.resolve(0) : this.h.queued(() => this.insert(items));
  }

  async claimShadowWork(
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ShadowClaimScope,
  ): Promise<ClaimedShadowWork[]> {
    if (limit < 1) return [];
    checkShadowClaimScope(scope);
    return this.h.queued(() => this.claim(owner, leaseMs, limit, now, scope));
  }

  /** Inside the write transaction: chooses up to `limit` items in turn and leases them to `owner`. */
  private claim(owner: string, leaseMs: number, limit: number, now: number, scope: ShadowClaimScope = {}) {
    const where = [
      now,
      JSON.stringify(scope.takeOver ?? []),
      scope.tenant ?? null,
      scope.tenant ?? null,
      scope.ids ? 1 : null,
      JSON.stringify(scope.ids ?? []),
      JSON.stringify(scope.skipTenants ?? []),
    ];
    const groups = groupsInTurn(
      (this.groups.all(...where) as Row[]).map(
        (r): ShadowGroup => ({
          tenant: r.tenant as string,
          workflowId: r.workflow_id as string,
          version: Number(r.version),
        }),
      ),
      scope.after,
    );
    const per = headsPerGroup(groups.length, limit);
    const lists: Row[][] = [];
    let found = 0;
    for (const g of groups) {
      if (per === 1 && found >= limit) break;
      const rows = this.heads.all(g.tenant, g.workflowId, g.version, ...where, per) as Row[];
      lists.push(rows);
      found += rows.length;
    }
    const until = now + leaseMs;
    const claimed: ClaimedShadowWork[] = [];
    for (const r of roundRobin(lists, limit)) {
      this.st.run('lease', [owner, until, r.tenant, r.id]);
      claimed.push(toClaimedWork({ ...r, lease_until: until }));
    }
    return claimed;
  }

  finishShadowWork(tenant: string, id: string): Promise<boolean> {
    return this.h.queued(() => this.st.run('finish', [tenant, id]).changes === 1);
  }

  releaseShadowWork(
    tenant: string,
    id: string,
    owner: string,
    retryAt?: number,
    failure?: string,
  ): Promise<boolean> {
    const values = [tenant, id, owner, retryAt ?? null, failure === undefined ? 0 : 1, failure ?? null];
    return this.h.queued(() => this.st.run('release', values).changes === 1);
  }

  failShadowWork(tenant: string, id: string, owner: string, error: string, at: number): Promise<boolean> {
    return this.h.queued(() => this.st.run('fail', [tenant, id, owner, error, at]).changes === 1);
  }

  retryFailedShadowWork(tenant: string): Promise<number> {
    return this.h.queued(() => this.st.run('retryFailed', [tenant]).changes);
  }

  wakeShadowWork(tenant: string, liveRunId: string): Promise<string[]> {
    return this.h.queued(() => this.st.all('wake', [tenant, liveRunId]).map((r) => r.id as string));
  }

  async shadowQueueStatus(
    now: number,
    f: { tenant?: string; workflowId?: string; version?: number } = {},
  ): Promise<ShadowQueueStatus> {
    const filter = [f.tenant ?? null, f.workflowId ?? null, f.version ?? null];
    const values = [now, ...filter];
    return toQueueStatus(
      this.st.all('status', values)[0],
      this.st.all('owners', values),
      this.st.all('failures', filter),
    );
  }
}
