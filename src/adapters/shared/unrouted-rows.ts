/**
 * What both stores keep of the unrouted inbox (ports/unrouted-inbox.ts), and the event index's
 * reroute. Statements use `$n` placeholders (SQLite binds them through `sqliteStatement`); rows map
 * to the port's records here. Pure: nothing here queries.
 */
import type { NewUnrouted, UnroutedEvent, UnroutedReason } from '../../ports/index.ts';
import type { Row } from './row.ts';

export const UNROUTED_SQL = {
  put: `INSERT INTO unrouted_events (tenant, id, source, event_id, event_type, subject, reason, detail, content, received_at, last_at, deliveries)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, 1)
    ON CONFLICT (tenant, id) DO UPDATE SET
      deliveries = unrouted_events.deliveries + 1,
      last_at = CASE WHEN excluded.last_at > unrouted_events.last_at THEN excluded.last_at ELSE unrouted_events.last_at END
    RETURNING *`,
  dropOld: 'DELETE FROM unrouted_events WHERE tenant = $1 AND received_at < $2',
  count: 'SELECT count(*) AS n FROM unrouted_events WHERE tenant = $1',
  dropOldest: `DELETE FROM unrouted_events WHERE tenant = $1 AND id IN (
    SELECT id FROM unrouted_events WHERE tenant = $1 ORDER BY received_at ASC, id ASC LIMIT $2)`,
  get: 'SELECT * FROM unrouted_events WHERE tenant = $1 AND id = $2',
  mark: `UPDATE unrouted_events SET redelivered_at = $3, runs = $4
    WHERE tenant = $1 AND id = $2 AND redelivered_at IS NULL`,
  reroute: `UPDATE delivered_events SET runs = $4 WHERE tenant = $1 AND source = $2 AND event_id = $3 AND runs = '[]'`,
} as const;

export function unroutedValues(e: NewUnrouted): unknown[] {
  return [
    e.tenant,
    e.id,
    e.source,
    e.eventId,
    e.type,
    e.subject,
    e.reason,
    e.detail,
    JSON.stringify(e.content),
    e.at,
  ];
}

export function toUnrouted(r: Row): UnroutedEvent {
  const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    tenant: r.tenant as string,
    id: r.id as string,
    source: r.source as string,
    eventId: str(r.event_id),
    type: str(r.event_type),
    subject: str(r.subject),
    reason: r.reason as UnroutedReason,
    detail: r.detail as string,
    content: JSON.parse(r.content as string) as unknown,
    receivedAt: r.received_at as string,
    lastAt: r.last_at as string,
    count: Number(r.deliveries),
    ...(r.redelivered_at !== null && r.redelivered_at !== undefined
      ? { redelivered: { at: r.redelivered_at as string, runs: JSON.parse(r.runs as string) as string[] } }
      : {}),
  };
}

/** The listing: the tenant's, by state, the most recently received first (1..500, default 100). */
export function unroutedQuery(
  tenant: string,
  q: { state?: 'waiting' | 'redelivered' | 'all'; limit?: number },
): { text: string; values: unknown[] } {
  const values: unknown[] = [tenant];
  const where = ['tenant = $1'];
  const state = q.state ?? 'waiting';
  if (state === 'waiting') where.push('redelivered_at IS NULL');
  if (state === 'redelivered') where.push('redelivered_at IS NOT NULL');
  const limit = Math.min(Math.max(Math.trunc(q.limit ?? 100), 1), 500);
  return {
    text: `SELECT * FROM unrouted_events WHERE ${where.join(' AND ')} ORDER BY received_at DESC, id DESC LIMIT $${values.push(limit)}`,
    values,
  };
}
