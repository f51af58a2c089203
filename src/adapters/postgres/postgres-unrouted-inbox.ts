/**
 * The inbox of unrouted events in PostgreSQL (ports/unrouted-inbox.ts). Keeping an entry and
 * applying the tenant's limits is one transaction holding a transaction-scoped advisory lock on the
 * tenant's inbox, so concurrent keeps (any connection, any process) apply the limits one after
 * the other and never drop more than they must; a redelivery's mark takes only a waiting entry,
 * so one mark wins.
 */
import type {
  KeptUnrouted,
  NewUnrouted,
  UnroutedEvent,
  UnroutedInbox,
  UnroutedLimits,
} from '../../ports/index.ts';
import type { Row } from '../shared/row.ts';
import { toUnrouted, UNROUTED_SQL, unroutedQuery, unroutedValues } from '../shared/unrouted-rows.ts';
import type { PostgresHandle } from './postgres-handle.ts';

export class PostgresUnroutedInbox implements UnroutedInbox {
  constructor(private readonly h: PostgresHandle) {}

  keepUnrouted(e: NewUnrouted, limits: UnroutedLimits): Promise<KeptUnrouted> {
    return this.h.withTransaction('keeping an unrouted event', async (c) => {
      await c.query('BEGIN');
      try {
        await c.query("SELECT pg_advisory_xact_lock(hashtext('keel_unrouted:' || $1))", [e.tenant]);
        const entry = toUnrouted((await c.query<Row>(UNROUTED_SQL.put, unroutedValues(e))).rows[0]!);
        const age = (await c.query(UNROUTED_SQL.dropOld, [e.tenant, limits.keepAfter])).rowCount ?? 0;
        const n = Number((await c.query<Row>(UNROUTED_SQL.count, [e.tenant])).rows[0]!.n);
        const size =
          n > limits.maxEntries
            ? ((await c.query(UNROUTED_SQL.dropOldest, [e.tenant, n - limits.maxEntries])).rowCount ?? 0)
            : 0;
        await c.query('COMMIT');
        return { entry, dropped: { age, size } };
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      }
    });
  }

  async getUnrouted(tenant: string, id: string): Promise<UnroutedEvent | undefined> {
    const row = (
      await this.h.query({ name: 'keel_get_unrouted', text: UNROUTED_SQL.get, values: [tenant, id] })
    ).rows[0];
    return row ? toUnrouted(row) : undefined;
  }

  async listUnrouted(
    tenant: string,
    q: { state?: 'waiting' | 'redelivered' | 'all'; limit?: number } = {},
  ): Promise<UnroutedEvent[]> {
    const { text, values } = unroutedQuery(tenant, q);
    return (await this.h.query(text, values)).rows.map(toUnrouted);
  }

  async markRedelivered(
    tenant: string,
    id: string,
    runs: readonly string[],
    at: string,
  ): Promise<UnroutedEvent | undefined> {
    await this.h.write('keel_mark_unrouted', UNROUTED_SQL.mark, [tenant, id, at, JSON.stringify(runs)]);
    return this.getUnrouted(tenant, id);
  }
}
