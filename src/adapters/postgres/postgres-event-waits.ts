/**
 * Waits for events in PostgreSQL (ports/event-waits.ts): arrivals kept once by name; a take is an
 * UPDATE guarded by "not taken, or taken by this step", so of concurrent takes the row lock lets
 * exactly one change the row; an arrival wakes the tenant's runs waiting for its type in the same
 * transaction and NOTIFYs `keel_runs`. A run going to sleep locks its row, then (a later statement,
 * a fresh snapshot) sets its wake time to now instead when an untaken arrival it has not seen is
 * there: an arrival whose wake locked the row first is committed and seen; one after waits for the
 * lock and then wakes the run itself, so no arrival is missed between a walk's look and its sleep. Tenant-scoped always.
 */
import type { EventRecord } from '../../core/ledger/index.ts';
import type { Arrival, EventWaits, SleepRequest, WokenRun } from '../../ports/index.ts';
import type { PostgresHandle } from './postgres-handle.ts';

export class PostgresEventWaits implements EventWaits {
  constructor(private readonly h: PostgresHandle) {}

  async arrive(event: EventRecord, arrivedAt: number): Promise<WokenRun[]> {
    const { rows } = await this.h.pool.query<{ run_id: string }>(
      `WITH kept AS (
         INSERT INTO arrivals (tenant, source, event_id, type, arrived_at, event) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (tenant, source, event_id) DO NOTHING
       ), woken AS (
         UPDATE runs SET wake_at = $5 WHERE tenant = $1 AND status = 'waiting' AND wait_event = $4
         RETURNING run_id
       ), told AS (
         SELECT pg_notify('keel_runs', current_schema()) WHERE EXISTS (SELECT 1 FROM woken)
       )
       SELECT run_id FROM woken, (SELECT count(*) FROM told) t`,
      [event.tenant, event.source, event.id, event.type, arrivedAt, JSON.stringify(event)],
    );
    return rows.map((r) => ({ tenant: event.tenant, runId: r.run_id }));
  }

  async listen(tenant: string, runId: string, type: string): Promise<void> {
    await this.h.pool.query('UPDATE runs SET wait_event = $1 WHERE tenant = $2 AND run_id = $3', [
      type,
      tenant,
      runId,
    ]);
  }

  async untaken(
    tenant: string,
    type: string,
    since: number,
    taker: { readonly runId: string; readonly step: string },
    limit: number,
  ): Promise<Arrival[]> {
    const { rows } = await this.h.pool.query<{ event: string; arrived_at: string }>(
      `SELECT event, arrived_at FROM arrivals
        WHERE tenant = $1 AND type = $2 AND arrived_at >= $3
          AND (taken_run IS NULL OR (taken_run = $4 AND taken_step = $5))
        ORDER BY arrived_at, source, event_id LIMIT $6`,
      [tenant, type, since, taker.runId, taker.step, limit],
    );
    return rows.map((r) => ({ event: JSON.parse(r.event) as EventRecord, arrivedAt: Number(r.arrived_at) }));
  }

  async take(
    tenant: string,
    event: { readonly source: string; readonly id: string },
    taker: { readonly runId: string; readonly step: string },
  ): Promise<boolean> {
    const r = await this.h.pool.query(
      `UPDATE arrivals SET taken_run = $1, taken_step = $2
        WHERE tenant = $3 AND source = $4 AND event_id = $5
          AND (taken_run IS NULL OR (taken_run = $1 AND taken_step = $2))`,
      [taker.runId, taker.step, tenant, event.source, event.id],
    );
    return r.rowCount === 1;
  }

  async sleep(tenant: string, runId: string, o: SleepRequest): Promise<void> {
    // The row is locked first, and the arrivals read by a later statement (a fresh snapshot): an
    // arrival whose wake ran before the lock is committed and seen; one after waits for the lock.
    const c = await this.h.pool.connect();
    try {
      await c.query('BEGIN');
      const locked = await c.query(
        `SELECT 1 FROM runs WHERE tenant = $1 AND run_id = $2 AND status = 'waiting' AND head_seq = $3 FOR UPDATE`,
        [tenant, runId, o.seq],
      );
      if (locked.rowCount === 1)
        await c.query(
          `WITH slept AS (
             UPDATE runs r SET lease_owner = NULL, lease_until = NULL,
               wake_at = CASE WHEN EXISTS (
                 SELECT 1 FROM arrivals a WHERE a.tenant = r.tenant AND a.type = $1 AND a.arrived_at >= $2
                   AND a.taken_run IS NULL
                   AND NOT EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[]) AS s(source, id)
                                   WHERE s.source = a.source AND s.id = a.event_id)
               ) THEN $5::bigint ELSE $6::bigint END
             WHERE r.tenant = $7 AND r.run_id = $8
             RETURNING 1
           )
           SELECT pg_notify('keel_runs', current_schema()) FROM slept`,
          [
            o.type,
            o.since,
            o.seen.map((s) => s.source),
            o.seen.map((s) => s.id),
            o.now,
            o.wakeAt,
            tenant,
            runId,
          ],
        );
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  async pruneArrivals(tenant: string, before: number, dryRun = false): Promise<number> {
    if (dryRun) {
      const { rows } = await this.h.pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM arrivals WHERE tenant = $1 AND arrived_at < $2',
        [tenant, before],
      );
      return Number(rows[0]!.n);
    }
    const r = await this.h.pool.query('DELETE FROM arrivals WHERE tenant = $1 AND arrived_at < $2', [
      tenant,
      before,
    ]);
    return r.rowCount ?? 0;
  }
}
