/**
 * The shadow queue as both stores keep it (docs/lifecycle.md, "The shadow queue"): one row per
 * comparison to make, leased to the drainer working on it, deleted once done. The statements both
 * stores share are written with `$n` placeholders; the claim's choice — each candidate version's
 * oldest item first, one version after another in turn, starting after the version served last —
 * is made here, so SQLite and PostgreSQL hand out work in the same order. Pure: nothing here queries.
 */
import type { Digest } from '../../core/canonical/index.ts';
import type { EventRecord } from '../../core/ledger/index.ts';
import type { ClaimedShadowWork, ShadowGroup, ShadowQueueStatus, ShadowWork } from '../../ports/index.ts';
import type { Row } from './row.ts';

export const SHADOW_QUEUE_SQL = {
  enqueue: `INSERT INTO shadow_queue (tenant, id, workflow_id, version, live_version, live_run_id, judged_as, event, enqueued_ms)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (tenant, id) DO NOTHING`,
  lease: 'UPDATE shadow_queue SET lease_owner = $1, lease_until = $2 WHERE tenant = $3 AND id = $4',
  finish: 'DELETE FROM shadow_queue WHERE tenant = $1 AND id = $2',
  // $5: 1 when an attempt failed (counted, its error $6 kept), else 0.
  release: `UPDATE shadow_queue SET lease_owner = NULL, lease_until = $4, attempts = attempts + $5, error = COALESCE($6, error)
    WHERE tenant = $1 AND id = $2 AND lease_owner = $3`,
  fail: `UPDATE shadow_queue SET lease_owner = NULL, lease_until = NULL, attempts = attempts + 1, error = $4, failed_ms = $5
    WHERE tenant = $1 AND id = $2 AND lease_owner = $3`,
  retryFailed: `UPDATE shadow_queue SET failed_ms = NULL, attempts = 0, error = NULL, lease_until = NULL
    WHERE tenant = $1 AND failed_ms IS NOT NULL`,
  wake: `UPDATE shadow_queue SET lease_until = NULL
    WHERE tenant = $1 AND live_run_id = $2 AND lease_owner IS NULL AND failed_ms IS NULL RETURNING id`,
  status: `SELECT sum(CASE WHEN failed_ms IS NULL THEN 1 ELSE 0 END) AS total,
      sum(CASE WHEN failed_ms IS NULL AND lease_owner IS NOT NULL AND lease_until >= $1 THEN 1 ELSE 0 END) AS running,
      min(CASE WHEN failed_ms IS NULL THEN enqueued_ms END) AS oldest,
      sum(CASE WHEN failed_ms IS NULL THEN 0 ELSE 1 END) AS failed
    FROM shadow_queue
   WHERE (CAST($2 AS TEXT) IS NULL OR tenant = $2) AND (CAST($3 AS TEXT) IS NULL OR workflow_id = $3) AND (CAST($4 AS INTEGER) IS NULL OR version = $4)`,
  owners: `SELECT lease_owner AS owner, count(*) AS n FROM shadow_queue
   WHERE lease_owner IS NOT NULL AND lease_until >= $1
     AND (CAST($2 AS TEXT) IS NULL OR tenant = $2) AND (CAST($3 AS TEXT) IS NULL OR workflow_id = $3) AND (CAST($4 AS INTEGER) IS NULL OR version = $4)
   GROUP BY lease_owner ORDER BY lease_owner`,
  // The failed items `status` lists, newest first: $1 tenant, $2 workflow, $3 version.
  failures: `SELECT id, workflow_id, version, live_run_id, attempts, error, failed_ms FROM shadow_queue
   WHERE failed_ms IS NOT NULL
     AND (CAST($1 AS TEXT) IS NULL OR tenant = $1) AND (CAST($2 AS TEXT) IS NULL OR workflow_id = $2) AND (CAST($3 AS INTEGER) IS NULL OR version = $3)
   ORDER BY failed_ms DESC, seq DESC LIMIT 20`,
} as const;

/** An item's values for `enqueue`. */
export function workValues(w: ShadowWork): unknown[] {
  return [
    w.tenant,
    w.id,
    w.workflowId,
    w.version,
    w.liveVersion,
    w.liveRunId ?? null,
    w.judgedAs,
    JSON.stringify(w.event),
    w.enqueuedMs,
  ];
}

export function toClaimedWork(r: Row): ClaimedShadowWork {
  return {
    tenant: r.tenant as string,
    id: r.id as Digest,
    workflowId: r.workflow_id as string,
    version: Number(r.version),
    liveVersion: Number(r.live_version),
    ...(typeof r.live_run_id === 'string' ? { liveRunId: r.live_run_id } : {}),
    judgedAs: r.judged_as as 'LIVE' | 'AUTONOMOUS',
    event: JSON.parse(r.event as string) as EventRecord,
    enqueuedMs: Number(r.enqueued_ms),
    leaseUntil: Number(r.lease_until),
    attempts: Number(r.attempts ?? 0),
  };
}

export function toQueueStatus(
  status: Row | undefined,
  owners: readonly Row[],
  failures: readonly Row[],
): ShadowQueueStatus {
  const total = Number(status?.total ?? 0);
  const running = Number(status?.running ?? 0);
  const oldest = status?.oldest;
  return {
    waiting: total - running,
    running,
    ...(oldest === null || oldest === undefined ? {} : { oldestMs: Number(oldest) }),
    owners: owners.map((o) => ({ owner: o.owner as string, items: Number(o.n) })),
    failed: Number(status?.failed ?? 0),
    failures: failures.map((f) => ({
      id: f.id as string,
      workflowId: f.workflow_id as string,
      version: Number(f.version),
      ...(typeof f.live_run_id === 'string' ? { liveRunId: f.live_run_id } : {}),
      attempts: Number(f.attempts),
      error: f.error as string,
      failedMs: Number(f.failed_ms),
    })),
  };
}

const key = (g: ShadowGroup) => [g.tenant, g.workflowId, g.version] as const;

function compareGroups(a: ShadowGroup, b: ShadowGroup): number {
  const [x, y] = [key(a), key(b)];
  for (let i = 0; i < 3; i++) if (x[i]! !== y[i]!) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

/** The candidate versions with claimable work, in the order of their turn: those after `after` first. */
export function groupsInTurn(groups: readonly ShadowGroup[], after?: ShadowGroup): ShadowGroup[] {
  const sorted = [...groups].sort(compareGroups);
  if (!after) return sorted;
  const i = sorted.findIndex((g) => compareGroups(g, after) > 0);
  return i < 0 ? sorted : [...sorted.slice(i), ...sorted.slice(0, i)];
}

/** How many of each version's oldest items a claim of `limit` must read to choose among them. */
export const headsPerGroup = (groups: number, limit: number) => (groups >= limit ? 1 : limit);

/**
 * Round robin over each version's items (oldest first, versions in turn): the first item of every
 * version, then the second of every version, and so on, at most `limit` in all.
 */
export function roundRobin<T>(lists: readonly (readonly T[])[], limit: number): T[] {
  const out: T[] = [];
  for (let round = 0; out.length < limit; round++) {
    let any = false;
    for (const list of lists) {
      if (round >= list.length) continue;
      any = true;
      out.push(list[round]!);
      if (out.length >= limit) break;
    }
    if (!any) break;
  }
  return out;
}
