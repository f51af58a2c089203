/**
 * Arithmetic on writ budgets (steps, calls, cents): what one allowed step costs a writ, and the
 * sums and differences a run's reservation is folded with. Pure values in, values out.
 */
import type { WritBudget } from './writ.ts';

export const ZERO_BUDGET: WritBudget = Object.freeze({ steps: 0, calls: 0, cents: 0 });

/** What one allowed step takes from a writ: one step, one tool call and the call's cost. */
export function stepCharge(costCents: number): WritBudget {
  return { steps: 1, calls: 1, cents: costCents };
}

export function addBudget(a: WritBudget, b: WritBudget): WritBudget {
  return { steps: a.steps + b.steps, calls: a.calls + b.calls, cents: a.cents + b.cents };
}

/** `a - b`, never below zero on any dimension. */
export function subtractBudget(a: WritBudget, b: WritBudget): WritBudget {
  return {
    steps: Math.max(0, a.steps - b.steps),
    calls: Math.max(0, a.calls - b.calls),
    cents: Math.max(0, a.cents - b.cents),
  };
}

/** True when `have` is at least `need` on every dimension. */
export function coversBudget(have: WritBudget, need: WritBudget): boolean {
  return have.steps >= need.steps && have.calls >= need.calls && have.cents >= need.cents;
}

export function isZeroBudget(b: WritBudget): boolean {
  return b.steps === 0 && b.calls === 0 && b.cents === 0;
}

/** True when `v` is a budget of non-negative safe integers (a payload or a request read back). */
export function isWritBudget(v: unknown): v is WritBudget {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as Record<string, unknown>;
  return [b.steps, b.calls, b.cents].every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
}
