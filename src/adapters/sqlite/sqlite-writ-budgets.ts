/**
 * Writ budgets in the SQLite file (schema v9): one row per tenant and writ, changed only inside
 * the savepoint of the append that carries the change (`change`, called by sqlite-ledger.ts), so a
 * reservation that does not fit rolls the whole append back. One process at a time writes the
 * file, so check-then-update is exact; the table's CHECK backs the check made first.
 */
import type Database from 'better-sqlite3';
import type { Digest } from '../../core/canonical/index.ts';
import type { AppendRequest, WritBudgets, WritBudgetUsage } from '../../ports/index.ts';
import type { Row } from '../shared/row.ts';
import {
  type BudgetLink,
  BudgetLinkCache,
  budgetLinks,
  budgetRefusal,
  chainMissing,
  checkBudgetChange,
  fits,
  usageOf,
} from '../shared/writ-budget-rows.ts';
import { io } from './sqlite-handle.ts';

export class SqliteWritBudgets implements WritBudgets {
  private readonly st;
  /** Writ chains' budget links read so far (a chain never changes). */
  private readonly links = new BudgetLinkCache();

  constructor(
    db: Database.Database,
    /** The writ chain stored under a hash (keys' `writ_chains`), as stored. */
    private readonly chainOf: (tenant: string, hash: string) => string | undefined,
  ) {
    this.st = {
      budgetRow: db.prepare(
        'SELECT hash, steps_used, calls_used, cents_used FROM writ_budgets WHERE tenant = ? AND hash = ?',
      ),
      // Reserve and release in one statement per writ; the table's CHECK backs the check made first.
      // Positional parameters (a writ's change is on every governed run's first commit): the
      // reservation is the inserted row's `_used`, the release the last three.
      budgetChange: db.prepare(
        `INSERT INTO writ_budgets (tenant, hash, steps_limit, calls_limit, cents_limit, steps_used, calls_used, cents_used)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant, hash) DO UPDATE SET
           steps_used = max(0, steps_used - ?) + excluded.steps_used,
           calls_used = max(0, calls_used - ?) + excluded.calls_used,
           cents_used = max(0, cents_used - ?) + excluded.cents_used`,
      ),
    };
  }

  /**
   * Inside the append's savepoint: reserves from (or releases to) every writ of the run's chain.
   * A reservation that does not fit any of them throws writ_budget_exhausted, and the savepoint
   * rolls the whole append back.
   */
  change(req: AppendRequest): void {
    const b = req.budget!;
    checkBudgetChange(req.runId, b);
    const links = this.linksOf(req.tenant, b.writ);
    if (b.reserve) {
      const usage = this.usage(req.tenant, links);
      if (!usage.every((u) => fits(u.used, u.limit, b))) throw budgetRefusal(usage, b);
    }
    const reserve = b.reserve;
    const release = b.release;
    for (const l of links)
      this.st.budgetChange.run(
        req.tenant,
        l.hash,
        l.limit.steps,
        l.limit.calls,
        l.limit.cents,
        reserve?.steps ?? 0,
        reserve?.calls ?? 0,
        reserve?.cents ?? 0,
        release?.steps ?? 0,
        release?.calls ?? 0,
        release?.cents ?? 0,
      );
  }

  /** The budget links of the chain stored under `leaf` (root first); ledger_invalid without one. */
  private linksOf(tenant: string, leaf: Digest): readonly BudgetLink[] {
    let links = this.links.get(tenant, leaf);
    if (!links) {
      const text = this.chainOf(tenant, leaf);
      if (text === undefined) throw chainMissing(tenant, leaf);
      links = budgetLinks(text, leaf);
      this.links.set(tenant, leaf, links);
    }
    return links;
  }

  private usage(tenant: string, links: readonly BudgetLink[]): WritBudgetUsage[] {
    const rows = links.map((l) => this.st.budgetRow.get(tenant, l.hash) as Row | undefined);
    return usageOf(
      links,
      rows.filter((r): r is Row => r !== undefined),
    );
  }

  async readWritBudgets(tenant: string, hash: Digest): Promise<WritBudgetUsage[] | undefined> {
    return io('reading writ budgets', () => {
      if (this.chainOf(tenant, hash) === undefined) return undefined;
      return this.usage(tenant, this.linksOf(tenant, hash));
    });
  }
}
