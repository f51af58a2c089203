/**
 * The shadow queue in PostgreSQL (docs/lifecycle.md, "The shadow queue"). A claim is one
 * transaction: the candidate versions with claimable items, each one's oldest items locked with SKIP LOCKED (a
 * concurrent claimer takes others, never the same), the round robin of shadow-queue-rows.ts, and
 * the leases. Items are queued by the append statement or on their own, and deleted when done;
 * every other write is one statement.
 */
import type pg from 'pg';
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
import type { PostgresHandle } from './postgres-handle.ts';

/** Not failed, no live lease (or one of a gone owner), within the scope: $1 now, $2 takeOver, $3 tenant, $4 ids, $5 skipped tenants. */
const CLAIMABLE = `failed_ms IS NULL AND (lease_until IS NULL OR lease_until < $1 OR lease_owner = ANY($2::text[]))
  AND ($3::text IS NULL OR tenant = $3)
  AND ($4::text[] IS NULL OR id = ANY($4::text[]))
  AND NOT (tenant = ANY($5::text[]))`;

const GROUPS = `SELECT DISTINCT tenant, workflow_id, version FROM shadow_queue WHERE ${CLAIMABLE}`;
const HEADS = `SELECT * FROM shadow_queue WHERE tenant = $6 AND workflow_id = $7 AND version = $8 AND ${CLAIMABLE}
  ORDER BY seq LIMIT $9 FOR UPDATE SKIP LOCKED`;

async function claimShadowWork(
  client: pg.PoolClient,
  owner: string,
  leaseMs: number,
  limit: number,
  now: number,
  scope: ShadowClaimScope = {},
): Promise<ClaimedShadowWork[]> {
  const where = [
    now,
    [...(scope.takeOver ?? [])],
    scope.tenant ?? null,
    scope.ids ? [...scope.ids] : null,
    [...(scope.skipTenants ?? [])],
  ];
  await client.query('BEGIN');
  try {
    const groups = groupsInTurn(
      (await client.query<Row>(GROUPS, where)).rows.map(
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
      const rows = (await client.query<Row>(HEADS, [...where, g.tenant, g.workflowId, g.version, per])).rows;
      lists.push(rows);
      found += rows.length;
    }
    const until = now + leaseMs;
    const claimed: ClaimedShadowWork[] = [];
    for (const r of roundRobin(lists, limit)) {
      await client.query(SHADOW_QUEUE_SQL.lease, [owner, until, r.tenant, r.id]);
      claimed.push(toClaimedWork({ ...r, lease_until: until }));
    }
    await client.query('COMMIT');
    return claimed;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

export class PostgresShadowQueue implements ShadowQueue {
  constructor(private readonly h: PostgresHandle) {}

  async enqueueShadowWork(items: readonly ShadowWork[]): Promise<number> {
    if (items.length === 0) return 0;
    return this.h.withTransaction('queueing shadow work', async (client) => {
      await client.query('BEGIN');
      try {
        let n = 0;
        for (const w of items)
          n += (await client.query(SHADOW_QUEUE_SQL.enqueue, workValues(w))).rowCount ?? 0;
        await client.query('COMMIT');
        return n;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
    });
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
    return this.h.withTransaction('claiming shadow work', (client) =>
      claimShadowWork(client, owner, leaseMs, limit, now, scope),
    );
  }

  async finishShadowWork(tenant: string, id: string): Promise<boolean> {
    return (
      (await this.h.write('keel_finish_shadow_work', SHADOW_QUEUE_SQL.finish, [tenant, id])).rowCount === 1
    );
  }

  async releaseShadowWork(
    tenant: string,
    id: string,
    owner: string,
    retryAt?: number,
    failure?: string,
  ): Promise<boolean> {
    const values = [tenant, id, owner, retryAt ?? null, failure === undefined ? 0 : 1, failure ?? null];
    return (await this.h.write('keel_release_shadow_work', SHADOW_QUEUE_SQL.release, values)).rowCount === 1;
  }

  async failShadowWork(
    tenant: string,
    id: string,
    owner: string,
    error: string,
    at: number,
  ): Promise<boolean> {
    const values = [tenant, id, owner, error, at];
    return (await this.h.write('keel_fail_shadow_work', SHADOW_QUEUE_SQL.fail, values)).rowCount === 1;
  }

  async retryFailedShadowWork(tenant: string): Promise<number> {
    return (
      (await this.h.write('keel_retry_failed_shadow_work', SHADOW_QUEUE_SQL.retryFailed, [tenant]))
        .rowCount ?? 0
    );
  }

  async wakeShadowWork(tenant: string, liveRunId: string): Promise<string[]> {
    const r = await this.h.write('keel_wake_shadow_work', SHADOW_QUEUE_SQL.wake, [tenant, liveRunId]);
    return r.rows.map((x) => x.id as string);
  }

  async shadowQueueStatus(
    now: number,
    f: { tenant?: string; workflowId?: string; version?: number } = {},
  ): Promise<ShadowQueueStatus> {
    const filter = [f.tenant ?? null, f.workflowId ?? null, f.version ?? null];
    const values = [now, ...filter];
    const status = (await this.h.query(SHADOW_QUEUE_SQL.status, values)).rows[0];
    return toQueueStatus(
      status,
      (await this.h.query(SHADOW_QUEUE_SQL.owners, values)).rows,
      (await this.h.query(SHADOW_QUEUE_SQL.failures, filter)).rows,
    );
  }
}
