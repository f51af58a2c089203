/**
 * The event index in PostgreSQL. A claim inserts the first delivery with ON CONFLICT DO NOTHING:
 * of concurrent claims of one name (any connection, any process) the unique key lets exactly one
 * insert; the others wait for it to commit, write nothing, and then read the row it committed
 * (in a new statement, whose snapshot sees it). Trigger disagreements go in with the insert, in its
 * transaction.
 *
 * A claim that names runs is made on `lazy`, a pool whose sessions commit with
 * `synchronous_commit = off`: the runs' roots are committed (synchronously) right after it, and
 * flushing the WAL up to a later commit flushes it up to the claim too, so the claim is durable
 * before any run it names is, and before the caller is answered; a crash in between loses the
 * claim together with runs that were never started. A claim that names none is answered at once,
 * so it is made on `pool` and commits synchronously.
 */
import type pg from 'pg';
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
import { unavailable } from './connection.ts';
import type { PostgresHandle } from './postgres-handle.ts';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

async function readFirst(db: Queryable, d: DeliveredEvent): Promise<EventClaim> {
  const { rows } = await db.query<Row>({
    name: 'keel_get_event',
    text: EVENT_SQL.get,
    values: [d.tenant, d.source, d.eventId],
  });
  return { state: 'again', first: toDeliveredEvent(rows[0]!) };
}

const insert = (db: Queryable, d: DeliveredEvent) =>
  db.query({ name: 'keel_claim_event', text: EVENT_SQL.claim, values: deliveredValues(d) });

/** Claims in one statement, or, with disagreements, in a transaction of its own. */
async function claimEvent(
  pools: { readonly pool: pg.Pool; readonly lazy: pg.Pool },
  d: DeliveredEvent,
  disagreements: readonly TriggerDisagreement[],
): Promise<EventClaim> {
  const on = d.runs.length > 0 ? pools.lazy : pools.pool;
  if (disagreements.length === 0) {
    if ((await insert(on, d)).rowCount === 1) return { state: 'first' };
    return readFirst(pools.pool, d);
  }
  const client = await on.connect();
  try {
    await client.query('BEGIN');
    try {
      if ((await insert(client, d)).rowCount !== 1) {
        await client.query('ROLLBACK');
        return await readFirst(client, d);
      }
      for (const x of disagreements)
        await client.query({
          name: 'keel_put_disagreement',
          text: EVENT_SQL.putDisagreement,
          values: disagreementValues(x),
        });
      await client.query('COMMIT');
      return { state: 'first' };
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    }
  } finally {
    client.release();
  }
}

export class PostgresEventIndex implements EventIndex {
  constructor(private readonly h: PostgresHandle) {}

  async claimEvent(
    d: DeliveredEvent,
    disagreements: readonly TriggerDisagreement[] = [],
  ): Promise<EventClaim> {
    try {
      const lazy = this.h.lazyPool();
      const claim = await claimEvent({ pool: this.h.pool, lazy }, d, disagreements);
      if (claim.state === 'first') this.h.commits++;
      return claim;
    } catch (e) {
      throw unavailable(e, 'claiming an event failed on', this.h.target);
    }
  }

  async rerouteEvent(
    tenant: string,
    source: string,
    eventId: string,
    runs: readonly RoutedRun[],
  ): Promise<DeliveredEvent | undefined> {
    await this.h.write('keel_reroute_event', UNROUTED_SQL.reroute, [
      tenant,
      source,
      eventId,
      JSON.stringify(runs),
    ]);
    return this.getDeliveredEvent(tenant, source, eventId);
  }

  async getDeliveredEvent(
    tenant: string,
    source: string,
    eventId: string,
  ): Promise<DeliveredEvent | undefined> {
    const row = (
      await this.h.query({ name: 'keel_get_event', text: EVENT_SQL.get, values: [tenant, source, eventId] })
    ).rows[0];
    return row ? toDeliveredEvent(row) : undefined;
  }

  async latestDeliveredEvent(tenant: string, source: string): Promise<DeliveredEvent | undefined> {
    const row = (
      await this.h.query({ name: 'keel_latest_event', text: EVENT_SQL.latest, values: [tenant, source] })
    ).rows[0];
    return row ? toDeliveredEvent(row) : undefined;
  }

  async recordEventConflict(c: NewEventConflict): Promise<EventConflict> {
    return toEventConflict(
      (await this.h.write('keel_put_event_conflict', EVENT_SQL.putConflict, conflictValues(c))).rows[0]!,
    );
  }

  async listEventConflicts(
    tenant: string,
    q: { source?: string; eventId?: string; limit?: number } = {},
  ): Promise<EventConflict[]> {
    const { text, values } = conflictsQuery(tenant, q);
    return (await this.h.query(text, values)).rows.map(toEventConflict);
  }

  async countTriggerDisagreements(
    tenant: string,
    workflowId: string,
    o: { to: number; startedAt: string },
  ): Promise<{ chosen: number; taken: number | null; count: number }[]> {
    const values = [tenant, workflowId, o.to, o.startedAt];
    return (
      await this.h.query({ name: 'keel_count_disagreements', text: EVENT_SQL.countDisagreements, values })
    ).rows.map(toDisagreementCount);
  }
}
