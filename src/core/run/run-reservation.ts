/**
 * A run's writ reservation, as its fold keeps it: what delegations reserved for the run (`reserve`)
 * and what each of its own allows draws from it (`drawOnReservation`), kept per step while the
 * call is in flight so a call found never to have happened gives its charge back. Pure.
 */
import type { PayloadOf } from '../ledger/index.ts';
import { addBudget, stepCharge, subtractBudget, type WritBudget, ZERO_BUDGET } from '../writs/index.ts';

/** Budget reserved for child runs by delegation steps (each child writ's whole budget). */
export interface Reserved {
  cents: number;
  steps: number;
  calls: number;
}

/** The fields of a run's fold these read and write. */
interface Reservations {
  reservation?: WritBudget;
  readonly reservationInFlight: Map<string, WritBudget>;
}

/**
 * An allow of the run's own: it adds what it reserved (if anything) and takes its step's charge
 * (one step, one call, its cost) from the reservation. A run that never reserved keeps none.
 */
export function drawOnReservation(s: Reservations, p: PayloadOf<'step.allowed'>): void {
  const have = p.reserves ? addBudget(s.reservation ?? ZERO_BUDGET, p.reserves) : s.reservation;
  if (!have) {
    s.reservationInFlight.delete(p.step);
    return;
  }
  const charge = stepCharge(p.costCents);
  s.reservation = subtractBudget(have, charge);
  s.reservationInFlight.set(p.step, charge);
}

/** Adds a child writ's budget (its signed leaf, as a delegation records it) to the reservations. */
export function reserve(r: Reserved | undefined, leaf: unknown): Reserved {
  const b = (leaf as { body?: { budget?: Record<string, unknown> } })?.body?.budget ?? {};
  const n = (k: string) => (typeof b[k] === 'number' ? (b[k] as number) : 0);
  return {
    cents: (r?.cents ?? 0) + n('cents'),
    steps: (r?.steps ?? 0) + n('steps'),
    calls: (r?.calls ?? 0) + n('calls'),
  };
}
