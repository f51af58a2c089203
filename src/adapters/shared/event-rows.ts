/**
 * What both stores keep of delivered events (the event index), conflicting redeliveries and a
 * rollout's trigger disagreements. The statements are written with `$n` placeholders (SQLite binds
 * them through `sqliteStatement`); rows map to the port's records here. Pure: nothing here queries.
 */
import type { Digest } from '../../core/canonical/index.ts';
import type { ContentField } from '../../core/run/index.ts';
import type {
  DeliveredEvent,
  EventConflict,
  NewEventConflict,
  RoutedRun,
  TriggerDisagreement,
} from '../../ports/index.ts';
import type { Row } from './row.ts';

export const EVENT_SQL = {
  claim: `INSERT INTO delivered_events (tenant, source, event_id, event_hash, event_type, subject, event_time, payload_hash, runs, delivered_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (tenant, source, event_id) DO NOTHING`,
  get: 'SELECT * FROM delivered_events WHERE tenant = $1 AND source = $2 AND event_id = $3',
  latest:
    'SELECT * FROM delivered_events WHERE tenant = $1 AND source = $2 ORDER BY event_time DESC, event_id DESC LIMIT 1',
  putDisagreement: `INSERT INTO trigger_disagreements (tenant, workflow_id, source, event_id, rollout_from, rollout_to, rollout_started_at, chosen, taken, at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (tenant, workflow_id, source, event_id) DO NOTHING`,
  countDisagreements: `SELECT chosen, taken, count(*) AS n FROM trigger_disagreements
    WHERE tenant = $1 AND workflow_id = $2 AND rollout_to = $3 AND rollout_started_at = $4 GROUP BY chosen, taken ORDER BY chosen, taken`,
  putConflict: `INSERT INTO event_conflicts (tenant, source, event_id, event_hash, first_hash, fields, first_at, last_at, deliveries)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $7, 1)
    ON CONFLICT (tenant, source, event_id, event_hash) DO UPDATE SET
      deliveries = event_conflicts.deliveries + 1,
      last_at = CASE WHEN excluded.last_at > event_conflicts.last_at THEN excluded.last_at ELSE event_conflicts.last_at END
    RETURNING *`,
} as const;

export function deliveredValues(d: DeliveredEvent): unknown[] {
  return [
    d.tenant,
    d.source,
    d.eventId,
    d.eventHash,
    d.type,
    d.subject,
    d.time,
    d.payloadHash,
    JSON.stringify(d.runs),
    d.deliveredAt,
  ];
}

export function toDeliveredEvent(r: Row): DeliveredEvent {
  return {
    tenant: r.tenant as string,
    source: r.source as string,
    eventId: r.event_id as string,
    eventHash: r.event_hash as Digest,
    type: r.event_type as string,
    subject: r.subject as string,
    time: r.event_time as string,
    payloadHash: r.payload_hash as Digest,
    runs: JSON.parse(r.runs as string) as RoutedRun[],
    deliveredAt: r.delivered_at as string,
  };
}

export function disagreementValues(d: TriggerDisagreement): unknown[] {
  return [d.tenant, d.workflowId, d.source, d.eventId, d.from, d.to, d.startedAt, d.chosen, d.taken, d.at];
}

export function toDisagreementCount(r: Row): { chosen: number; taken: number | null; count: number } {
  return {
    chosen: Number(r.chosen),
    taken: r.taken === null || r.taken === undefined ? null : Number(r.taken),
    count: Number(r.n),
  };
}

export function conflictValues(c: NewEventConflict): unknown[] {
  return [c.tenant, c.source, c.eventId, c.eventHash, c.firstHash, JSON.stringify(c.fields), c.at];
}

export function toEventConflict(r: Row): EventConflict {
  return {
    tenant: r.tenant as string,
    source: r.source as string,
    eventId: r.event_id as string,
    firstHash: r.first_hash as string,
    eventHash: r.event_hash as string,
    fields: JSON.parse(r.fields as string) as ContentField[],
    firstAt: r.first_at as string,
    lastAt: r.last_at as string,
    count: Number(r.deliveries),
  };
}

/** The conflicts listing: the tenant's, narrowed, the most recently delivered first (1..500, default 100). */
export function conflictsQuery(
  tenant: string,
  q: { source?: string; eventId?: string; limit?: number },
): { text: string; values: unknown[] } {
  const values: unknown[] = [tenant];
  const where = ['tenant = $1'];
  if (q.source !== undefined) where.push(`source = $${values.push(q.source)}`);
  if (q.eventId !== undefined) where.push(`event_id = $${values.push(q.eventId)}`);
  const limit = Math.min(Math.max(Math.trunc(q.limit ?? 100), 1), 500);
  return {
    text: `SELECT * FROM event_conflicts WHERE ${where.join(' AND ')} ORDER BY last_at DESC, source DESC, event_id DESC, event_hash DESC LIMIT $${values.push(limit)}`,
    values,
  };
}
