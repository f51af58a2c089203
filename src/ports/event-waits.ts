/**
 * Waits for events (docs/flow.md, "Waiting for an event"): the store keeps each delivered event
 * of a type some version waits for (an ARRIVAL: the event in full and when it arrived), so a wait
 * that begins later still finds one that arrived since its run started (the look-back window);
 * each arrival is TAKEN by at most one waiting run (`take`, atomic on every store), and an arrival
 * wakes the tenant's runs waiting for its type (their wake time becomes now) so a worker walks
 * them at once. The walk decides which arrival matches; the store only keeps, hands out and wakes.
 *
 * Times are milliseconds since the epoch, from the caller. Tenant-scoped always.
 */
import type { EventRecord } from '../core/ledger/index.ts';

/** An event as kept for waits: the canonical event in full, when it arrived (ms). */
export interface Arrival {
  readonly event: EventRecord;
  readonly arrivedAt: number;
}

/** A run an arrival woke. */
export interface WokenRun {
  readonly tenant: string;
  readonly runId: string;
}

export interface EventWaits {
  /**
   * Keeps `event` (once: a redelivery of its name changes nothing) as arrived at `arrivedAt`, and
   * sets the wake time of the tenant's runs waiting for its type to `arrivedAt`, telling workers.
   * Returns the runs it woke. Durable when it resolves.
   */
  arrive(event: EventRecord, arrivedAt: number): Promise<WokenRun[]>;
  /**
   * Marks the run as waiting for events of `type` (until its status leaves `waiting`): arrivals
   * of that type wake it. Called after the `wait.started` append is durable.
   */
  listen(tenant: string, runId: string, type: string): Promise<void>;
  /**
   * The tenant's arrivals of `type` at or after `since` (ms) that no run took — or that this run
   * took for this step (a take whose `wait.ended` was never written: a crash) — oldest first, at
   * most `limit`.
   */
  untaken(
    tenant: string,
    type: string,
    since: number,
    taker: { readonly runId: string; readonly step: string },
    limit: number,
  ): Promise<Arrival[]>;
  /**
   * Takes an arrival for the run's step: true when it is now (or was already) this step's, false
   * when another run (or another step) took it. Atomic across handles and processes.
   */
  take(
    tenant: string,
    event: { readonly source: string; readonly id: string },
    taker: { readonly runId: string; readonly step: string },
  ): Promise<boolean>;
  /**
   * A waiting run found nothing it takes among the arrivals `seen` (their `source` and `id`): it
   * sleeps. Clears its lease and sets its wake time to `wakeAt` (null: none, only an arrival wakes
   * it) — or to `now` if an untaken arrival of `type` at or after `since` not among `seen` is
   * there (one that came while the walk looked). Only while the run is `waiting` at head `seq`.
   */
  sleep(tenant: string, runId: string, o: SleepRequest): Promise<void>;
  /**
   * Removes the tenant's arrivals that arrived before `before` (ms), taken or not, and returns how
   * many; with `dryRun`, removes nothing and returns how many it would. Retention decides `before`
   * (app/retention.ts): no wait that can still begin looks back that far.
   */
  pruneArrivals(tenant: string, before: number, dryRun?: boolean): Promise<number>;
}

/** What a waiting run's sleep names (`EventWaits.sleep`): its head, the wait, what it looked at, when to wake. */
export interface SleepRequest {
  readonly seq: number;
  readonly type: string;
  readonly since: number;
  readonly seen: readonly { readonly source: string; readonly id: string }[];
  readonly wakeAt: number | null;
  readonly now: number;
}
