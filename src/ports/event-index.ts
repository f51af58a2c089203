/**
 * The event index (docs/http.md, "Events"; DESIGN invariant 15): per tenant, `(source, id)` names
 * one event, its first delivery's content hash and the runs its routing chose (none is an answer
 * too), claimed atomically so concurrent deliveries of one event make one set of runs;
 * redeliveries with other content are recorded as conflicts, and a rollout's trigger
 * disagreements are counted.
 */
import type { SplitEntry } from '../core/ledger/index.ts';
import type { ContentField, EventContent } from '../core/run/index.ts';

/** A run an event's routing chose: the version, its id (content-derived), and the rollout's split. */
export interface RoutedRun {
  readonly workflowId: string;
  readonly version: number;
  readonly runId: string;
  readonly split?: SplitEntry;
}

/** An event's first delivery as the index keeps it: its name, its content and the runs it chose. */
export interface DeliveredEvent extends EventContent {
  readonly tenant: string;
  readonly source: string;
  readonly eventId: string;
  /** The runs its routing chose, in routing order; empty when no workflow took it. */
  readonly runs: readonly RoutedRun[];
  /** ISO-8601 time of the first delivery. */
  readonly deliveredAt: string;
}

/**
 * During a rollout, an event the two LIVE versions' triggers disagree on: the version its bucket
 * chose, and the one that took it (null: none did). Kept once per event and workflow, with the
 * rollout it fell in: its two versions and its `startedAt` (which names it).
 */
export interface TriggerDisagreement {
  readonly tenant: string;
  readonly workflowId: string;
  readonly source: string;
  readonly eventId: string;
  readonly from: number;
  readonly to: number;
  /** The rollout's `startedAt`. */
  readonly startedAt: string;
  readonly chosen: number;
  readonly taken: number | null;
  readonly at: string;
}

/** `first`: this delivery named the event first and its runs stand; `again`: here is the first delivery. */
export type EventClaim =
  | { readonly state: 'first' }
  | { readonly state: 'again'; readonly first: DeliveredEvent };

/** A redelivery with other content, as recorded: once per distinct content, counted. */
export interface EventConflict {
  readonly tenant: string;
  readonly source: string;
  readonly eventId: string;
  /** The content hash of the first delivery, and of the conflicting one. */
  readonly firstHash: string;
  readonly eventHash: string;
  readonly fields: readonly ContentField[];
  /** ISO-8601 times this content was first and last delivered, and how often. */
  readonly firstAt: string;
  readonly lastAt: string;
  readonly count: number;
}

export type NewEventConflict = Omit<EventConflict, 'firstAt' | 'lastAt' | 'count'> & { readonly at: string };

export interface EventIndex {
  /**
   * Names an event in its tenant: stores `d` (with `disagreements`, in the same transaction) unless
   * `(tenant, source, eventId)` is stored already, in which case nothing is written and the stored
   * first delivery is returned, whatever its content. Atomic across handles and processes: of
   * concurrent claims of one name exactly one is `first`. A claim that names runs may be committed
   * without waiting for its own flush to disk (the caller commits those runs next, durably, and
   * that makes the claim durable too); one that names none is durable when it resolves.
   */
  claimEvent(d: DeliveredEvent, disagreements?: readonly TriggerDisagreement[]): Promise<EventClaim>;
  /**
   * Routes an event that started no run again (an unrouted event redelivered): stores `runs` as
   * its runs only if it still names none, atomically, so of concurrent reroutes one wins. Answers
   * the delivery as stored after (the winner's runs), undefined when the event was never delivered.
   */
  rerouteEvent(
    tenant: string,
    source: string,
    eventId: string,
    runs: readonly RoutedRun[],
  ): Promise<DeliveredEvent | undefined>;
  /** The first delivery of the tenant's event `(source, eventId)`, if it was delivered. */
  getDeliveredEvent(tenant: string, source: string, eventId: string): Promise<DeliveredEvent | undefined>;
  /**
   * The tenant's delivered event from `source` with the latest `time` (then the greatest id): what
   * the scheduler reads as the last fire of a workflow's schedule (source `schedule:<id>`).
   */
  latestDeliveredEvent(tenant: string, source: string): Promise<DeliveredEvent | undefined>;
  /** Records a conflicting redelivery: a new content once, the same content again counted (last time kept). */
  recordEventConflict(c: NewEventConflict): Promise<EventConflict>;
  /** The tenant's conflicts, the most recently delivered first; narrowed to a source and an event id. */
  listEventConflicts(
    tenant: string,
    q?: { readonly source?: string; readonly eventId?: string; readonly limit?: number },
  ): Promise<EventConflict[]>;
  /**
   * The trigger disagreements of a workflow's rollout (to version `to`, started at `startedAt`),
   * counted by the version the bucket chose and the one that took the event.
   */
  countTriggerDisagreements(
    tenant: string,
    workflowId: string,
    o: { readonly to: number; readonly startedAt: string },
  ): Promise<{ readonly chosen: number; readonly taken: number | null; readonly count: number }[]>;
}
