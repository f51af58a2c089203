/**
 * The event index in PostgreSQL. A claim inserts the first delivery with ON CONFLICT DO NOTHING:
 * of concurrent claims of one name (any connection, any process) the unique key lets exactly one
 * insert; the others wait for it to commit, write nothing, and then read the row it committed
 * (in a new statement, whose snapshot sees it). Trigger disagreements go in with the insert, in its
 * transaction; without any, the insert is one autocommitted statement.
 */
import type pg from 'pg';
import type { DeliveredEvent, EventClaim, TriggerDisagreement } from '../../ports/index.ts';
import { deliveredValues, disagreementValues, EVENT_SQL, toDeliveredEvent } from '../shared/event-rows.ts';
import type { Row } from '../shared/rows.ts';

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

/** Claims on the pool (no disagreements) or in a transaction on `connect()`'s client. */
export async function claimEvent(
  pool: pg.Pool,
  connect: () => Promise<pg.PoolClient>,
  d: DeliveredEvent,
  disagreements: readonly TriggerDisagreement[],
): Promise<EventClaim> {
  if (disagreements.length === 0) {
    if ((await insert(pool, d)).rowCount === 1) return { state: 'first' };
    return readFirst(pool, d);
  }
  const client = await connect();
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
