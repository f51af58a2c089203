/**
 * The event index in the SQLite file: a claim inserts the first delivery with its trigger
 * disagreements, or reads the one stored, inside the store's IMMEDIATE group-commit transaction
 * (`claim` is applied there, never in a transaction of its own), so concurrent claims of one event,
 * from this process or another sharing the file, queue on the write lock and exactly one is first;
 * concurrent deliveries share one commit. Conflicting redeliveries are upserted (kept once per
 * content, counted).
 */
import type Database from 'better-sqlite3';
import type {
  DeliveredEvent,
  EventClaim,
  EventConflict,
  NewEventConflict,
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
import type { Row } from '../shared/rows.ts';
import { sqliteStatement } from '../shared/writ-trust-rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';

export class SqliteEvents {
  private readonly st: BoundStatements<keyof typeof EVENT_SQL>;

  constructor(private readonly db: Database.Database) {
    this.st = boundStatements(db, EVENT_SQL);
  }

  /** Applied inside a write transaction (the store's group commit). */
  claim(d: DeliveredEvent, disagreements: readonly TriggerDisagreement[]): EventClaim {
    // A name already stored: nothing is written. The row the insert ran into is read in the same
    // transaction, so it is there.
    if (this.st.run('claim', deliveredValues(d)).changes === 0)
      return { state: 'again', first: this.get(d.tenant, d.source, d.eventId)! };
    for (const x of disagreements) this.st.run('putDisagreement', disagreementValues(x));
    return { state: 'first' };
  }

  get(tenant: string, source: string, eventId: string): DeliveredEvent | undefined {
    const row = this.st.all('get', [tenant, source, eventId])[0];
    return row ? toDeliveredEvent(row) : undefined;
  }

  /** Applied inside a write transaction (the store's group commit). */
  recordConflict(c: NewEventConflict): EventConflict {
    return toEventConflict(this.st.all('putConflict', conflictValues(c))[0]!);
  }

  listConflicts(tenant: string, q: { source?: string; eventId?: string; limit?: number }): EventConflict[] {
    const { text, values } = conflictsQuery(tenant, q);
    const s = sqliteStatement(text);
    return (this.db.prepare(s.sql).all(...s.order.map((i) => values[i])) as Row[]).map(toEventConflict);
  }

  countDisagreements(
    tenant: string,
    workflowId: string,
    o: { to: number; startedAt: string },
  ): { chosen: number; taken: number | null; count: number }[] {
    return this.st
      .all('countDisagreements', [tenant, workflowId, o.to, o.startedAt])
      .map(toDisagreementCount);
  }
}
