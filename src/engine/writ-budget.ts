/**
 * Writ budgets shared by every run under a writ (docs/governance.md, "Budgets across runs"): how
 * an allowed step of a run under a writ takes its share before anything runs.
 *
 * A step's charge (one step, one call, its cost) comes out of the run's reservation. When the
 * reservation does not cover it, the allow reserves more — as much as the run can still take (its
 * steps left, at most maxSteps and its writ's budget), so that later steps need no store round
 * trip — and is committed with that reservation in one store append: the store charges every writ
 * of the chain in the allow's own transaction, or refuses the append whole. Refused, it asks once
 * more for just this step's shortfall; refused again, the step is refused (`writ_budget_exhausted`,
 * naming the writ that ran out) and nothing executes. A replay (and a replay fork) never asks the
 * store: it takes the answer its record holds — the reservation an allow recorded, or the refusal.
 */
import type { Entry, PayloadOf } from '../core/ledger/index.ts';
import {
  type Decision,
  type ExecutionPlan,
  notTaken,
  type PolicyRecord,
  type RunState,
} from '../core/run/index.ts';
import {
  coversBudget,
  stepCharge,
  subtractBudget,
  type WritBudget,
  WritCode,
  ZERO_BUDGET,
} from '../core/writs/index.ts';
import type { Effects } from './effects.ts';
import { type RunGovernance, writUsage } from './governance.ts';
import type { RecordedBudgetRefusal } from './recorded-budget.ts';
import type { BudgetRefusal, RunWriter } from './run-writer.ts';

/** What the walk knows of the run's limits when a step under a writ is allowed. */
export interface BudgetLimits {
  /** The run's writ chain (root first): the leaf's budget bounds what the run reserves. */
  readonly writ: NonNullable<RunGovernance['writ']>;
  readonly maxSteps: number;
  readonly plan: ExecutionPlan;
  /** The policy's part of the decision, kept on a refusal as on any refusal of this step. */
  readonly policy?: PolicyRecord;
}

/**
 * Adds the allow of a step of a run under a writ, with the reservation it needs (committed at
 * once when it needs one), or returns the refusal to record instead. Nothing has executed either way.
 */
export async function allowUnderWrit(
  w: RunWriter,
  fx: Effects,
  payload: PayloadOf<'step.allowed'>,
  limits: BudgetLimits,
): Promise<Entry<'step.allowed'> | Decision> {
  const s = w.state;
  if (fx.recordedBudget) {
    const recorded = fx.recordedBudget(s);
    if (recorded && 'refusal' in recorded) return refusal(recorded.refusal, limits.policy);
    if (recorded?.reserves) payload.reserves = recorded.reserves;
    return w.add('step.allowed', payload);
  }
  const charge = stepCharge(payload.costCents);
  const have = s.reservation ?? ZERO_BUDGET;
  if (coversBudget(have, charge)) return w.add('step.allowed', payload);
  const shortfall = subtractBudget(charge, have);
  const wanted = wantedReservation(s, limits, have, shortfall);
  let refused: BudgetRefusal | undefined;
  for (const ask of sameBudget(wanted, shortfall) ? [shortfall] : [wanted, shortfall]) {
    payload.reserves = ask;
    const r = await w.commitAllow(payload);
    if ('kind' in r) return r;
    refused = r;
  }
  delete payload.reserves;
  const d = refused!.details;
  return refusal(
    {
      message: refused!.message,
      writ: { hash: d.writ, code: d.code, budget: { used: d.used, limit: d.limit, asked: d.asked } },
    },
    limits.policy,
  );
}

/**
 * What an allow asks to reserve when the run's reservation does not cover its step: enough for
 * every step the run can still take — its plan's steps not completed, at most maxSteps and what
 * its leaf writ leaves this run (as folded from its ledger) — and at least the step's shortfall.
 * Cents are reserved step by step (a step's cost is known only once its arguments are).
 */
function wantedReservation(
  s: RunState,
  limits: BudgetLimits,
  have: WritBudget,
  shortfall: WritBudget,
): WritBudget {
  const chain = limits.writ.chain;
  const leaf = chain[chain.length - 1]!.body.budget;
  const room = subtractBudget(leaf, writUsage(s));
  // Tool steps still to come (a choice calls nothing; a branch not taken never runs).
  let left = 0;
  for (const n of limits.plan.nodes)
    if (n.kind === 'tool' && !s.completed.has(n.id) && !notTaken(n, s.chosen)) left++;
  const most = Math.min(limits.maxSteps - s.stepsTaken, left);
  return {
    steps: Math.max(shortfall.steps, Math.min(most, room.steps) - have.steps),
    calls: Math.max(shortfall.calls, Math.min(most, room.calls) - have.calls),
    cents: shortfall.cents,
  };
}

function sameBudget(a: WritBudget, b: WritBudget): boolean {
  return a.steps === b.steps && a.calls === b.calls && a.cents === b.cents;
}

function refusal(r: RecordedBudgetRefusal, policy: PolicyRecord | undefined): Decision {
  const d: Decision = {
    outcome: 'refuse',
    check: 'writ',
    code: WritCode.budgetExhausted,
    message: r.message,
    writ: r.writ,
  };
  if (policy) (d as { policy?: PolicyRecord }).policy = policy;
  return d;
}
