/**
 * Claiming shadow work in PostgreSQL (docs/lifecycle.md, "The shadow queue"): in one transaction,
 * the candidate versions with claimable items, each one's oldest items locked with SKIP LOCKED (a
 * concurrent claimer takes others, never the same), the round robin of shadow-queue-rows.ts, and
 * the leases. Items are queued by the append statement or on their own, and deleted when done.
 */
import type pg from 'pg';
import type { ClaimedShadowWork, ShadowClaimScope, ShadowGroup } from '../../ports/index.ts';
import type { Row } from '../shared/rows.ts';
import {
  groupsInTurn,
  headsPerGroup,
  roundRobin,
  SHADOW_QUEUE_SQL,
  toClaimedWork,
} from '../shared/shadow-queue-rows.ts';

/** Not failed, no live lease (or one of a gone owner), within the scope: $1 now, $2 takeOver, $3 tenant, $4 ids, $5 skipped tenants. */
const CLAIMABLE = `failed_ms IS NULL AND (lease_until IS NULL OR lease_until < $1 OR lease_owner = ANY($2::text[]))
  AND ($3::text IS NULL OR tenant = $3)
  AND ($4::text[] IS NULL OR id = ANY($4::text[]))
  AND NOT (tenant = ANY($5::text[]))`;

const GROUPS = `SELECT DISTINCT tenant, workflow_id, version FROM shadow_queue WHERE ${CLAIMABLE}`;
const HEADS = `SELECT * FROM shadow_queue WHERE tenant = $6 AND workflow_id = $7 AND version = $8 AND ${CLAIMABLE}
  ORDER BY seq LIMIT $9 FOR UPDATE SKIP LOCKED`;

export async function claimShadowWork(
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
