/**
 * What a recorded ledger says writ budgets answered: the reservation each `step.allowed` made, and
 * each refusal by a writ's shared budget. Replay and a replay fork are served these
 * (recorded-effects.ts) instead of asking the store (writ-budget.ts, which takes them live).
 */
import type { Entry, PayloadOf } from '../core/ledger/index.ts';

/** A budget refusal as the ledger records it (a recorded one is served as it was). */
export interface RecordedBudgetRefusal {
  readonly message: string;
  readonly writ: NonNullable<PayloadOf<'step.refused'>['writ']>;
}

/** What a record says the writ budget answered for an allow: the reservation it recorded, or the refusal. */
export type RecordedBudget =
  | { readonly reserves?: PayloadOf<'step.allowed'>['reserves'] }
  | { readonly refusal: RecordedBudgetRefusal };

/**
 * The budget answers a recorded ledger holds, by the seq of the entry they decided: every
 * `step.allowed` (with the reservation it made, if any) and every refusal by a writ's shared
 * budget (a `step.refused` whose `writ` records `budget`). Replay serves them (recorded-effects.ts).
 */
export function recordedBudgets(entries: readonly Entry[]): Map<number, RecordedBudget> {
  const out = new Map<number, RecordedBudget>();
  for (const e of entries) {
    if (e.kind === 'step.allowed') {
      const p = e.payload as PayloadOf<'step.allowed'>;
      out.set(e.seq, p.reserves ? { reserves: p.reserves } : {});
    } else if (e.kind === 'step.refused') {
      const p = e.payload as PayloadOf<'step.refused'>;
      if (p.check === 'writ' && p.writ?.budget)
        out.set(e.seq, { refusal: { message: p.message, writ: p.writ } });
    }
  }
  return out;
}
