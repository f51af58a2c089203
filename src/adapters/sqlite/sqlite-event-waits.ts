/**
 * Waits for events in the SQLite file (ports/event-waits.ts): arrivals kept once by name, taken by
 * one run step (an UPDATE guarded by "not taken, or taken by this step", inside the store's
 * IMMEDIATE group-commit transaction, so takes from any process sharing the file queue on the
 * write lock and exactly one wins), and the runs waiting for a type woken by an arrival of it in
 * the same transaction. Never reads or writes another tenant's rows.
 */
import type { EventRecord } from '../../core/ledger/index.ts';
import type { Arrival, EventWaits, SleepRequest, WokenRun } from '../../ports/index.ts';
import type { SqliteHandle } from './sqlite-handle.ts';

export class SqliteEventWaits implements EventWaits {
  private readonly st;

  constructor(private readonly h: SqliteHandle) {
    const db = h.db;
    this.st = {
      keep: db.prepare(
        `INSERT INTO arrivals (tenant, source, event_id, type, arrived_at, event) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant, source, event_id) DO NOTHING`,
      ),
      wake: db
        .prepare(
          `UPDATE runs SET wake_at = ? WHERE tenant = ? AND status = 'waiting' AND wait_event = ?
           RETURNING run_id`,
        )
        .pluck(),
      listen: db.prepare(`UPDATE runs SET wait_event = ? WHERE tenant = ? AND run_id = ?`),
      countOld: db.prepare('SELECT count(*) FROM arrivals WHERE tenant = ? AND arrived_at < ?').pluck(),
      pruneOld: db.prepare('DELETE FROM arrivals WHERE tenant = ? AND arrived_at < ?'),
      untaken: db.prepare(
        `SELECT event, arrived_at FROM arrivals
         WHERE tenant = ? AND type = ? AND arrived_at >= ?
           AND (taken_run IS NULL OR (taken_run = ? AND taken_step = ?))
         ORDER BY arrived_at, source, event_id LIMIT ?`,
      ),
      take: db.prepare(
        `UPDATE arrivals SET taken_run = ?, taken_step = ?
         WHERE tenant = ? AND source = ? AND event_id = ?
           AND (taken_run IS NULL OR (taken_run = ? AND taken_step = ?))`,
      ),
      sleep: db.prepare(
        `UPDATE runs SET lease_owner = NULL, lease_until = NULL,
           wake_at = CASE WHEN EXISTS (
             SELECT 1 FROM arrivals a WHERE a.tenant = runs.tenant AND a.type = ? AND a.arrived_at >= ?
               AND a.taken_run IS NULL
               AND json_array(a.source, a.event_id) NOT IN (SELECT value FROM json_each(?))
           ) THEN ? ELSE ? END
         WHERE tenant = ? AND run_id = ? AND status = 'waiting' AND head_seq = ?
         RETURNING wake_at`,
      ),
    };
  }

  async arrive(event: EventRecord, arrivedAt: number): Promise<WokenRun[]> {
    const woken = await this.h.queued(() => {
      this.st.keep.run(event.tenant, event.source, event.id, event.type, arrivedAt, JSON.stringify(event));
      return this.st.wake.all(arrivedAt, event.tenant, event.type) as string[];
    });
    if (woken.length > 0) this.h.wake();
    return woken.map((runId) => ({ tenant: event.tenant, runId }));
  }

  async listen(tenant: string, runId: string, type: string): Promise<void> {
    await this.h.queued(() => this.st.listen.run(type, tenant, runId));
  }

  async untaken(
    tenant: string,
    type: string,
    since: number,
    taker: { readonly runId: string; readonly step: string },
    limit: number,
  ): Promise<Arrival[]> {
    const rows = this.st.untaken.all(tenant, type, since, taker.runId, taker.step, limit) as {
      event: string;
      arrived_at: number;
    }[];
    return rows.map((r) => ({ event: JSON.parse(r.event) as EventRecord, arrivedAt: r.arrived_at }));
  }

  take(
    tenant: string,
    event: { readonly source: string; readonly id: string },
    taker: { readonly runId: string; readonly step: string },
  ): Promise<boolean> {
    return this.h.queued(
      () =>
        this.st.take.run(taker.runId, taker.step, tenant, event.source, event.id, taker.runId, taker.step)
          .changes === 1,
    );
  }

  async sleep(tenant: string, runId: string, o: SleepRequest): Promise<void> {
    const seen = JSON.stringify(o.seen.map((s) => JSON.stringify([s.source, s.id])));
    const wake = await this.h.queued(
      () =>
        this.st.sleep.all(o.type, o.since, seen, o.now, o.wakeAt, tenant, runId, o.seq) as {
          wake_at: number | null;
        }[],
    );
    // Due at once (an arrival came while the walk looked), or a new wake time: workers re-arm.
    if (wake.length > 0) this.h.wake();
  }

  async pruneArrivals(tenant: string, before: number, dryRun = false): Promise<number> {
    if (dryRun) return (this.st.countOld.get(tenant, before) as number) ?? 0;
    return this.h.queued(() => this.st.pruneOld.run(tenant, before).changes);
  }
}
