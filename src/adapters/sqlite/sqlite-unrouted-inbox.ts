/**
 * The inbox of unrouted events in the SQLite file (ports/unrouted-inbox.ts). Keeping an entry and
 * applying the tenant's limits is one write of the store's group-commit transaction (sqlite-handle.ts),
 * so concurrent keeps, from this process or another sharing the file, queue on the write lock and
 * the limits hold after each; a redelivery's mark takes only a waiting entry, so one mark wins.
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
import { sqliteStatement } from '../shared/writ-trust-rows.ts';
import { type BoundStatements, boundStatements } from './bound-statements.ts';
import type { SqliteHandle } from './sqlite-handle.ts';

export class SqliteUnroutedInbox implements UnroutedInbox {
  private readonly st: BoundStatements<keyof typeof UNROUTED_SQL>;

  constructor(private readonly h: SqliteHandle) {
    this.st = boundStatements(h.db, UNROUTED_SQL);
  }

  keepUnrouted(e: NewUnrouted, limits: UnroutedLimits): Promise<KeptUnrouted> {
    return this.h.queued(() => {
      const entry = toUnrouted(this.st.all('put', unroutedValues(e))[0]!);
      const age = this.st.run('dropOld', [e.tenant, limits.keepAfter]).changes;
      const n = Number(this.st.all('count', [e.tenant])[0]!.n);
      const size =
        n > limits.maxEntries ? this.st.run('dropOldest', [e.tenant, n - limits.maxEntries]).changes : 0;
      return { entry, dropped: { age, size } };
    });
  }

  async getUnrouted(tenant: string, id: string): Promise<UnroutedEvent | undefined> {
    const row = this.st.all('get', [tenant, id])[0];
    return row ? toUnrouted(row) : undefined;
  }

  async listUnrouted(
    tenant: string,
    q: { state?: 'waiting' | 'redelivered' | 'all'; limit?: number } = {},
  ): Promise<UnroutedEvent[]> {
    const { text, values } = unroutedQuery(tenant, q);
    const s = sqliteStatement(text);
    return (this.h.db.prepare(s.sql).all(...s.order.map((i) => values[i])) as Row[]).map(toUnrouted);
  }

  markRedelivered(
    tenant: string,
    id: string,
    runs: readonly string[],
    at: string,
  ): Promise<UnroutedEvent | undefined> {
    return this.h.queued(() => {
      this.st.run('mark', [tenant, id, at, JSON.stringify(runs)]);
      const row = this.st.all('get', [tenant, id])[0];
      return row ? toUnrouted(row) : undefined;
    });
  }
}
