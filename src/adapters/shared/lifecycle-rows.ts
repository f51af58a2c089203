/**
 * What both stores keep for the lifecycle (docs/lifecycle.md): shadow comparisons, skipped shadow
 * runs, rollouts, and the columns a lifecycle record adds to `promotions` (its kind, evidence,
 * override and chain hashes). The statements are written with `$n` placeholders (SQLite binds them
 * through `sqliteStatement`); rows map to the port's records here. Pure: nothing here queries.
 */
import type { Digest } from '../../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import {
  type Comparison,
  type LifecycleKind,
  type PromotionRecord,
  promotionHash,
  type RolloutState,
} from '../../core/lifecycle/index.ts';
import type { WorkflowStatus } from '../../core/spec/index.ts';
import type { NewPromotion, ShadowSkip, StoredComparison } from '../../ports/index.ts';
import type { Row } from './row.ts';

export const LIFECYCLE_SQL = {
  putComparison: `INSERT INTO shadow_comparisons (tenant, shadow_run_id, live_run_id, workflow_id, shadow_version, live_version, agree, comparison, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (tenant, shadow_run_id) DO NOTHING`,
  comparisons: `SELECT * FROM shadow_comparisons WHERE tenant = $1 AND workflow_id = $2 AND shadow_version = $3 AND created_at >= $4
    ORDER BY created_at, shadow_run_id`,
  putSkip: `INSERT INTO shadow_skips (tenant, workflow_id, version, live_run_id, reason, at) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (tenant, workflow_id, version, live_run_id) DO NOTHING`,
  // Each skip counted against the version of the live run it was skipped beside (a run removed by
  // retention: the version its retained row keeps; neither: null).
  skipsByLiveVersion: `SELECT coalesce(r.version, x.version) AS live_version, count(*) AS n
    FROM shadow_skips s
    LEFT JOIN runs r ON r.run_id = s.live_run_id AND r.tenant = s.tenant
    LEFT JOIN retained_runs x ON x.run_id = s.live_run_id AND x.tenant = s.tenant
   WHERE s.tenant = $1 AND s.workflow_id = $2 AND s.version = $3 AND s.at >= $4
   GROUP BY coalesce(r.version, x.version) ORDER BY coalesce(r.version, x.version) NULLS LAST`,
  getRollout: 'SELECT state, rev FROM rollouts WHERE tenant = $1 AND workflow_id = $2',
  insertRollout:
    'INSERT INTO rollouts (tenant, workflow_id, state, rev) VALUES ($1, $2, $3, 1) ON CONFLICT (tenant, workflow_id) DO NOTHING',
  updateRollout:
    'UPDATE rollouts SET state = $3, rev = rev + 1 WHERE tenant = $1 AND workflow_id = $2 AND rev = $4',
  lastPromotion:
    'SELECT hash FROM promotions WHERE tenant = $1 AND workflow_id = $2 ORDER BY id DESC LIMIT 1',
  setStatus:
    'UPDATE workflow_versions SET status = $1 WHERE tenant = $2 AND workflow_id = $3 AND version = $4 AND status = $5',
} as const;

/** The promotions columns a lifecycle record adds, in the order `promotionValues` gives them. */
export const PROMOTION_COLUMNS = 'kind, evidence, override_reason, prev_hash, hash';

/** A record's values for those columns. */
export function promotionValues(p: PromotionRecord): unknown[] {
  return [
    p.kind ?? null,
    p.evidence === undefined ? null : JSON.stringify(p.evidence),
    p.override?.reason ?? null,
    p.prevHash ?? null,
    p.hash ?? null,
  ];
}

/** A lifecycle record as stored: its chain columns where it has them (records from before: none). */
export function toPromotionRecord(r: Row): PromotionRecord {
  const opt = <K extends string>(k: K, v: unknown) => (v === null || v === undefined ? {} : { [k]: v });
  return {
    tenant: r.tenant as string,
    workflowId: r.workflow_id as string,
    version: Number(r.version),
    from: r.from_status as WorkflowStatus,
    to: r.to_status as WorkflowStatus,
    by: r.promoted_by as string,
    at: r.at as string,
    ...opt('kind', r.kind as LifecycleKind | null),
    ...(typeof r.evidence === 'string' ? { evidence: JSON.parse(r.evidence) } : {}),
    ...(typeof r.override_reason === 'string' ? { override: { reason: r.override_reason } } : {}),
    ...opt('prevHash', r.prev_hash),
    ...opt('hash', r.hash as Digest | null),
  } as PromotionRecord;
}

/** New records chained after the record whose hash is `head`: each names the one before it. */
export function chainAfter(head: string, records: readonly NewPromotion[]): PromotionRecord[] {
  const out: PromotionRecord[] = [];
  let prev = head;
  for (const r of records) {
    const hash = promotionHash(r, prev);
    out.push({ ...r, prevHash: prev, hash });
    prev = hash;
  }
  return out;
}

export function comparisonValues(c: StoredComparison): unknown[] {
  return [
    c.tenant,
    c.shadowRunId,
    // No live run (the live version did not start on the event): kept as '' in a NOT NULL column.
    c.liveRunId ?? '',
    c.workflowId,
    c.shadowVersion,
    c.liveVersion,
    c.agree ? 1 : 0,
    JSON.stringify(c.comparison),
    c.createdAt,
  ];
}

export function toComparison(r: Row): StoredComparison {
  return {
    tenant: r.tenant as string,
    workflowId: r.workflow_id as string,
    shadowRunId: r.shadow_run_id as string,
    ...(r.live_run_id ? { liveRunId: r.live_run_id as string } : {}),
    shadowVersion: Number(r.shadow_version),
    liveVersion: Number(r.live_version),
    agree: Number(r.agree) === 1,
    comparison: JSON.parse(r.comparison as string) as Comparison,
    createdAt: r.created_at as string,
  };
}

export function skipValues(s: ShadowSkip): unknown[] {
  return [s.tenant, s.workflowId, s.version, s.liveRunId, s.reason, s.at];
}

/** Skipped shadow runs per live version, from `skipsByLiveVersion` rows. */
export function toSkipCounts(rows: readonly Row[]): { liveVersion: number | null; count: number }[] {
  return rows.map((r) => ({
    liveVersion: r.live_version === null || r.live_version === undefined ? null : Number(r.live_version),
    count: Number(r.n),
  }));
}

export function toRollout(r: Row): { state: RolloutState; rev: number } {
  return { state: JSON.parse(r.state as string) as RolloutState, rev: Number(r.rev) };
}

/** The version a lifecycle record meant to move had moved already: nothing was written. */
export function statusMoved(p: NewPromotion): KeelError {
  return new KeelError(
    ErrorCode.headConflict,
    `${p.workflowId} v${p.version} is no longer ${p.from}: someone changed it meanwhile; nothing was recorded`,
    { workflowId: p.workflowId, version: p.version },
  );
}

/** The rollout changed since it was read: nothing was written. */
export function rolloutMoved(workflowId: string): KeelError {
  return new KeelError(
    ErrorCode.headConflict,
    `the rollout of ${workflowId} changed meanwhile; nothing was recorded — read it again`,
    { workflowId },
  );
}

/**
 * `WHERE` conditions for the run filters the lifecycle adds — a version, a mode (`live`: no mode),
 * a creation time range (`since` inclusive, `until` exclusive; both in the clock's text, so byte
 * order is time order) — each value bound through `next`, which returns its placeholder.
 */
export function modeFilter(
  f: {
    workflowId?: string;
    version?: number;
    mode?: string;
    status?: string;
    since?: string;
    until?: string;
  },
  next: (value: unknown) => string,
  o: { workflowAndStatus?: boolean } = {},
): string[] {
  const where: string[] = [];
  // listRuns filters workflow and status itself; countRuns asks for them here.
  if (o.workflowAndStatus && f.workflowId !== undefined) where.push(`workflow_id = ${next(f.workflowId)}`);
  if (o.workflowAndStatus && f.status !== undefined) where.push(`status = ${next(f.status)}`);
  if (f.version !== undefined) where.push(`version = ${next(f.version)}`);
  if (f.mode === 'live') where.push('mode IS NULL');
  else if (f.mode !== undefined) where.push(`mode = ${next(f.mode)}`);
  if (f.since !== undefined) where.push(`created_at >= ${next(f.since)}`);
  if (f.until !== undefined) where.push(`created_at < ${next(f.until)}`);
  return where;
}
