/**
 * Writ budgets shared by every run under a writ, as both stores keep them (table `writ_budgets`,
 * one row per tenant and writ: its limits and what runs under it reserved). Owns reading a stored
 * chain into its links (each writ's hash, id and budget, root first), the check of a reservation
 * against them, and the `writ_budget_exhausted` refusal. Pure: nothing here queries; the stores
 * read the chain and the rows and apply the change in the transaction of the append.
 */
import { type Digest, isDigest } from '../../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { formatCents } from '../../core/money.ts';
import {
  isWritBudget,
  type WritBody,
  type WritBudget,
  WritCode,
  writHash,
  ZERO_BUDGET,
} from '../../core/writs/index.ts';
import type { BudgetChange, BudgetRefusalDetails, WritBudgetUsage } from '../../ports/index.ts';
import type { Row } from './row.ts';

/** One writ of a chain as its budget row needs it. */
export interface BudgetLink {
  readonly hash: Digest;
  readonly id: string;
  readonly limit: WritBudget;
}

/**
 * The links of the chain stored under `leaf` (its canonical JSON text), root first. The text was
 * stored by content (its last writ hashes to `leaf`, each body names its parent's hash), and that
 * is checked again here: a chain that does not hold together is a broken store, never a budget.
 */
export function budgetLinks(chainText: string, leaf: Digest): BudgetLink[] {
  const broken = (why: string) =>
    new KeelError(ErrorCode.ledgerInvalid, `the chain stored for writ ${leaf} ${why}`, { writ: leaf });
  let chain: unknown;
  try {
    chain = JSON.parse(chainText);
  } catch {
    throw broken('is not JSON');
  }
  if (!Array.isArray(chain) || chain.length === 0) throw broken('is not a list of writs');
  const links: BudgetLink[] = [];
  let parent: Digest | null = null;
  for (const w of chain as { body?: WritBody }[]) {
    const body = w?.body;
    if (!body || typeof body.id !== 'string' || !isWritBudget(body.budget) || body.parent !== parent)
      throw broken(`has a malformed link at ${links.length}`);
    const hash = writHash(body);
    links.push({
      hash,
      id: body.id,
      limit: { steps: body.budget.steps, calls: body.budget.calls, cents: body.budget.cents },
    });
    parent = hash;
  }
  if (parent !== leaf) throw broken('does not end in that writ');
  return links;
}

/** Throws (a broken invariant in the caller) unless the change names a digest and budgets of safe integers >= 0. */
export function checkBudgetChange(runId: string, b: BudgetChange): void {
  if (!isDigest(b.writ) || (b.reserve && !isWritBudget(b.reserve)) || (b.release && !isWritBudget(b.release)))
    throw new KeelError(ErrorCode.internal, `append to ${runId}: a malformed writ budget change`, { runId });
}

/** Chains' links this store handle has read, per tenant and leaf hash (a chain never changes). */
export class BudgetLinkCache {
  private readonly known = new Map<string, readonly BudgetLink[]>();

  get(tenant: string, leaf: Digest): readonly BudgetLink[] | undefined {
    return this.known.get(`${tenant}\u0000${leaf}`);
  }

  set(tenant: string, leaf: Digest, links: readonly BudgetLink[]): void {
    if (this.known.size >= 1024) this.known.clear();
    this.known.set(`${tenant}\u0000${leaf}`, links);
  }
}

/** A chain that is not in the store: a run's root names a writ whose chain was never stored. */
export function chainMissing(tenant: string, leaf: Digest): KeelError {
  return new KeelError(
    ErrorCode.ledgerInvalid,
    `writ ${leaf} of tenant ${tenant} has no chain in this store, so its budget cannot be reserved`,
    { writ: leaf },
  );
}

/** The budget columns of a `writ_budgets` row. */
export function usedOf(r: Row): WritBudget {
  return { steps: Number(r.steps_used), calls: Number(r.calls_used), cents: Number(r.cents_used) };
}

/** What each link's runs reserved, from the rows read (a writ with no row has reserved nothing). */
export function usageOf(links: readonly BudgetLink[], rows: readonly Row[]): WritBudgetUsage[] {
  const byHash = new Map(rows.map((r) => [r.hash as string, usedOf(r)]));
  return links.map((l) => ({
    hash: l.hash,
    id: l.id,
    limit: l.limit,
    used: byHash.get(l.hash) ?? ZERO_BUDGET,
  }));
}

/** `used - release + reserve` fits within `limit` on every dimension. */
export function fits(used: WritBudget, limit: WritBudget, b: BudgetChange): boolean {
  const after = (k: keyof WritBudget) => Math.max(0, used[k] - (b.release?.[k] ?? 0)) + (b.reserve?.[k] ?? 0);
  return after('steps') <= limit.steps && after('calls') <= limit.calls && after('cents') <= limit.cents;
}

/**
 * The refusal of a reservation that does not fit: the first writ of the chain (from the root)
 * that would overspend, with what its runs reserved, its limit and what was asked.
 */
export function budgetRefusal(usage: readonly WritBudgetUsage[], b: BudgetChange): KeelError {
  const out = usage.find((u) => !fits(u.used, u.limit, b)) ?? usage[usage.length - 1]!;
  const asked = b.reserve ?? ZERO_BUDGET;
  const details: BudgetRefusalDetails = {
    code: WritCode.budgetExhausted,
    writ: out.hash,
    id: out.id,
    used: out.used,
    limit: out.limit,
    asked,
  };
  return new KeelError(ErrorCode.writRefused, budgetMessage(details), { ...details });
}

/** "writ w has no budget left: its runs hold 1 of 1 tool calls, ... (this step asks for 1)". */
export function budgetMessage(d: Omit<BudgetRefusalDetails, 'code'>): string {
  const over: string[] = [];
  const { used, limit, asked } = d;
  if (used.steps + asked.steps > limit.steps)
    over.push(`${used.steps} of its ${limit.steps} steps are taken and ${asked.steps} more were asked for`);
  if (used.calls + asked.calls > limit.calls)
    over.push(
      `${used.calls} of its ${limit.calls} tool calls are taken and ${asked.calls} more were asked for`,
    );
  if (used.cents + asked.cents > limit.cents)
    over.push(
      `$${formatCents(used.cents)} of its $${formatCents(limit.cents)} is taken and $${formatCents(asked.cents)} more was asked for`,
    );
  return `writ ${d.id}'s budget, shared by every run under it, is exhausted: ${over.join('; ') || 'nothing is left'}`;
}
