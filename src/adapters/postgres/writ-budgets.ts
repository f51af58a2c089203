/**
 * Writ budgets for the PostgreSQL store: the links of a run's writ chain (read once per writ and
 * process from `writ_chains`) and their `writ_budgets` rows, created once (with nothing reserved)
 * before the first append that changes them, so the append statement only ever updates rows.
 * The change itself rides on the append statement (append-statement.ts); this owns what comes
 * before it and the refusal after it. It never changes what a run reserved on its own.
 */
import type pg from 'pg';
import type { Digest } from '../../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { AppendRequest, WritBudgetUsage } from '../../ports/index.ts';
import type { Row } from '../shared/row.ts';
import {
  type BudgetLink,
  BudgetLinkCache,
  budgetLinks,
  budgetRefusal,
  chainMissing,
  usageOf,
} from '../shared/writ-budget-rows.ts';

const SQL = {
  chain: 'SELECT chain FROM writ_chains WHERE tenant = $1 AND hash = $2',
  // Sorted, like the append statement's locks: two processes creating rows never deadlock.
  ensure: `INSERT INTO writ_budgets (tenant, hash, steps_limit, calls_limit, cents_limit)
    SELECT $1, x.hash, x.steps, x.calls, x.cents
      FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) AS x(hash, steps, calls, cents)
     ORDER BY x.hash
    ON CONFLICT (tenant, hash) DO NOTHING`,
  rows: 'SELECT * FROM writ_budgets WHERE tenant = $1 AND hash = ANY($2::text[])',
} as const;

/** The constraint a reservation past a writ's limit breaks (schema.ts, migration 7). */
const WITHIN_LIMITS = 'writ_budgets_within_limits';

type Client = pg.Pool | pg.PoolClient;

export class PgWritBudgets {
  private readonly links = new BudgetLinkCache();
  /** Writs whose rows exist (rows are never deleted), per tenant and leaf. */
  private readonly ensured = new Set<string>();
  /** The links each prepared append's statement charges (kept per append, whatever the caches forget). */
  private readonly prepared = new WeakMap<AppendRequest, readonly BudgetLink[]>();

  /** The links of the chain stored under `leaf`, root first; ledger_invalid when there is none. */
  async linksOf(client: Client, tenant: string, leaf: Digest): Promise<readonly BudgetLink[] | undefined> {
    const known = this.links.get(tenant, leaf);
    if (known) return known;
    const r = await client.query<Row>({
      name: 'keel_writ_budget_chain',
      text: SQL.chain,
      values: [tenant, leaf],
    });
    const text = r.rows[0]?.chain as string | undefined;
    if (text === undefined) return undefined;
    const links = budgetLinks(text, leaf);
    this.links.set(tenant, leaf, links);
    return links;
  }

  /** Makes sure every writ of the append's chain has its row; the links for the statement. */
  async prepare(pool: pg.Pool, req: AppendRequest): Promise<void> {
    const leaf = req.budget!.writ;
    const links = await this.linksOf(pool, req.tenant, leaf);
    if (!links) throw chainMissing(req.tenant, leaf);
    this.prepared.set(req, links);
    const key = `${req.tenant}\u0000${leaf}`;
    if (this.ensured.has(key)) return;
    await pool.query({
      name: 'keel_writ_budget_ensure',
      text: SQL.ensure,
      values: [
        req.tenant,
        links.map((l) => l.hash),
        links.map((l) => l.limit.steps),
        links.map((l) => l.limit.calls),
        links.map((l) => l.limit.cents),
      ],
    });
    if (this.ensured.size >= 4096) this.ensured.clear();
    this.ensured.add(key);
  }

  /** The links `prepare` read for this append (the statement's rows); none without a budget change. */
  statementLinks(req: AppendRequest): readonly BudgetLink[] {
    if (!req.budget) return [];
    const links = this.prepared.get(req);
    if (!links)
      throw new KeelError(
        ErrorCode.internal,
        `append to ${req.runId}: its writ budget change was not prepared`,
        {
          runId: req.runId,
        },
      );
    return links;
  }

  async usage(client: Client, tenant: string, links: readonly BudgetLink[]): Promise<WritBudgetUsage[]> {
    const r = await client.query<Row>({
      name: 'keel_writ_budget_rows',
      text: SQL.rows,
      values: [tenant, links.map((l) => l.hash)],
    });
    return usageOf(links, r.rows);
  }

  /** The refusal of an append whose reservation broke a writ's limit, from the rows as they are now. */
  async refusal(client: Client, req: AppendRequest): Promise<Error> {
    const links = this.statementLinks(req);
    return budgetRefusal(await this.usage(client, req.tenant, links), req.budget!);
  }
}

/** True when `e` is a statement refused because a writ budget would be overspent. */
export function isBudgetViolation(e: unknown): boolean {
  const { code, constraint } = e as { code?: string; constraint?: string };
  return code === '23514' && constraint === WITHIN_LIMITS;
}
