/**
 * Writ budgets shared by every run under a writ (docs/governance.md, "Budgets across runs"):
 * reserved and released only with appends (ledger.ts, `AppendRequest.budget`), in their
 * transaction; read here.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { WritBudget } from '../core/writs/index.ts';

/**
 * A change of the budgets of every writ of a chain, made in the same transaction as the append
 * that carries it. `writ` is the hash a run's root names (its chain is stored under it,
 * `putWritChain`): the change applies to that writ and to each of its ancestors. A positive
 * `reserve` must fit within every writ's limit after what its runs already reserved, or the whole
 * append is refused — `writ_refused` with `details.code` `writ_budget_exhausted`, naming the writ
 * that ran out (`details.writ`), its `used` and `limit`, and what was `asked` — and nothing is
 * written. `release` gives back what a run reserved and did not use (never below zero).
 */
export interface BudgetChange {
  readonly writ: Digest;
  readonly reserve?: WritBudget;
  readonly release?: WritBudget;
}

/** One writ of a chain with its shared budget: its limit and what runs under it reserved. */
export interface WritBudgetUsage {
  readonly hash: Digest;
  /** The writ body's `id`. */
  readonly id: string;
  readonly limit: WritBudget;
  /** Reserved by every run under this writ or a writ derived from it (used, or held for use). */
  readonly used: WritBudget;
}

/** The `details` of a `writ_refused` error whose `code` is `writ_budget_exhausted`. */
export interface BudgetRefusalDetails {
  readonly code: 'writ_budget_exhausted';
  /** The writ of the chain that ran out (the chain's first, from the root, that would overspend). */
  readonly writ: Digest;
  readonly id: string;
  readonly used: WritBudget;
  readonly limit: WritBudget;
  readonly asked: WritBudget;
}

export interface WritBudgets {
  /**
   * The shared budget of each writ of the chain stored under `hash` (root first): its limit and
   * what runs under it reserved. Undefined when the tenant has no chain under that hash.
   */
  readWritBudgets(tenant: string, hash: Digest): Promise<WritBudgetUsage[] | undefined>;
}
