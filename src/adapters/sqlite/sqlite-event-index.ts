/**
 * The event index in the SQLite file: a claim inserts the first delivery with its trigger
 * disagreements, or reads the one stored, inside the store's IMMEDIATE group-commit transaction
 * (sqlite-handle.ts; never in a transaction of its own), so concurrent claims of one event,
 * from this process or another sharing the file, queue on the write lock and exactly one is first;
 * concurrent deliveries share one commit. Conflicting redeliveries are upserted (kept once per
 * content, counted).
 */
import type {
  DeliveredEvent,
  EventClaim,
  EventConflict,
  EventIndex,
  NewEventConflict,
  RoutedRun,
  TriggerDisagreement,
} from '../../ports/index.ts';
import {
  conflictsQuery,
  conflictValues,
  deliveredValues,
  disagreementValues,
  EVENT_SQL,
  toDeliveredEvent,
  toDisagreementCount,
  toEventConflict,
} from '../shared/event-rows.ts';
import type { Row } from '../shared/row.ts';
import { UNROUTED_SQL } from '../shared/unrouted-rows.ts';
import { sqliteStatement } from '../shared/writ-trust-rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';
import type { SqliteHandle } from './sqlite-handle.ts';

export class SqliteEventIndex implements EventIndex {
  private readonly st: BoundStatements<keyof typeof EVENT_SQL>;
  private readonly reroute: BoundStatements<'reroute'>;

  constructor(private readonly h: SqliteHandle) {
    this.st = boundStatements(h.db, EVENT_SQL);
    this.reroute = boundStatements(h.db, { reroute: UNROUTED_SQL.reroute });
  }

  /** Kept in the next group commit with the appends around it: concurrent deliveries share one fsync. */
  claimEvent(d: DeliveredEvent, disagreements: readonly TriggerDisagreement[] = []): Promise<EventClaim> {
    // The runs it names are started next, in durable commits.
    return this.h.queued(() => this.claim(d, disagreements), d.runs.length > 0);
  }

  /** Applied inside a write transaction (the group commit). */
  private claim(d: DeliveredEvent, disagreements: readonly TriggerDisagreement[]): EventClaim {
    // A name already stored: nothing is written. The row the insert ran into is read in the same
    // transaction, so it is there.
    if (this.st.run('claim', deliveredValues(d)).changes === 0)
      return { state: 'again', first: this.get(d.tenant, d.source, d.eventId)! };
    for (const x of disagreements) this.st.run('putDisagreement', disagreementValues(x));
    return { state: 'first' };
  }

  /** Kept in the next group commit: the runs are stored only where the event still names none. */
  rerouteEvent(
    tenant: string,
    source: string,
    eventId: string,
    runs: readonly RoutedRun[],
  ): Promise<DeliveredEvent | undefined> {
    return this.h.queued(() => {
      this.reroute.run('reroute', [tenant, source, eventId, JSON.stringify(runs)]);
      return this.get(tenant, source, eventId);
    });
  }

  async getDeliveredEvent(
    tenant: string,
    source: string,
    eventId: string,
  ): Promise<DeliveredEvent | undefined> {
    return this.get(tenant, source, eventId);
  }

  async latestDeliveredEvent(tenant: string, source: string): Promise<DeliveredEvent | undefined> {
    const row = this.st.all('latest', [tenant, source])[0];
    return row ? toDeliveredEvent(row) : undefined;
  }

  private get(tenant: string, source: string, eventId: string): DeliveredEvent | undefined {
    const row = this.st.all('get', [tenant, source, eventId])[0];
    return row ? toDeliveredEvent(row) : undefined;
  }

  /** Kept in the next group commit: a new content once, the same content again counted. */
  recordEventConflict(c: NewEventConflict): Promise<EventConflict> {
    return this.h.queued(() => toEventConflict(this.st.all('putConflict', conflictValues(c))[0]!));
  }

  async listEventConflicts(
    tenant: string,
    q: { source?: string; eventId?: string; limit?: number } = {},
  ): Promise<EventConflict[]> {
    const { text, values } = conflictsQuery(tenant, q);
    const s = sqliteStatement(text);
    return (this.h.db.prepare(s.sql).all(...s.order.map((i) => values[i])) as Row[]).map(toEventConflict);
  }

  async countTriggerDisagreements(
    tenant: string,
    workflowId: string,
    o: { to: number; startedAt: string },
  ): Promise<{ chosen: number; taken: number | null; count: number }[]> {
    return this.st
      .all('countDisagreements', [tenant, workflowId, o.to, o.startedAt])
      .map(toDisagreementCount);
  }
}
