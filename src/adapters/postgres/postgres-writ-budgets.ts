/**
 * Writ budgets in PostgreSQL, read: a chain's links and their rows, through the same caches the
 * append statement's reservations use (writ-budgets.ts, owned by the group commit).
 */
import type { Digest } from '../../core/canonical/index.ts';
import { KeelError } from '../../core/errors.ts';
import type { WritBudgets, WritBudgetUsage } from '../../ports/index.ts';
import { unavailable } from './connection.ts';
import type { PostgresHandle } from './postgres-handle.ts';

export class PostgresWritBudgets implements WritBudgets {
  constructor(private readonly h: PostgresHandle) {}

  async readWritBudgets(tenant: string, hash: Digest): Promise<WritBudgetUsage[] | undefined> {
    const budgets = this.h.writer.budgets;
    try {
      const links = await budgets.linksOf(this.h.pool, tenant, hash);
      return links && (await budgets.usage(this.h.pool, tenant, links));
    } catch (e) {
      if (e instanceof KeelError) throw e;
      throw unavailable(e, 'query failed on', this.h.target);
    }
  }
}
