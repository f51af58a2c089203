/**
 * The inbox of unrouted events (docs/events.md; issue 29 §2): per tenant, the events no workflow
 * took and the hook deliveries whose mapping failed after authentication, each kept with the reason,
 * never dropped silently. An entry is named by a content-derived id (the event's `(source, id)`,
 * or a delivery's hook and body), so the same event kept twice is one entry, counted. Limits (age,
 * size) are applied as an entry is kept, oldest first, and what they drop is counted by the caller.
 * A redelivery that starts runs marks its entry redelivered, with the runs, exactly once.
 */

/** Why an event is in the inbox. */
export type UnroutedReason =
  /** No LIVE or AUTONOMOUS version's trigger takes it. */
  | 'no_route'
  /** A rollout's bucket chose a version whose trigger does not take it, and the other did not either. */
  | 'rollout_untaken'
  /** A hook delivery, authenticated, whose mapping to an event failed. */
  | 'mapping_failed';

export const UNROUTED_REASONS: readonly UnroutedReason[] = ['no_route', 'rollout_untaken', 'mapping_failed'];

/** An entry as first kept: what the caller knows. */
export interface NewUnrouted {
  readonly tenant: string;
  /** Content-derived (`sha256:<hex>`): the same event or delivery kept again is the same entry. */
  readonly id: string;
  /** The event's source (`hook:<name>` for a hook delivery). */
  readonly source: string;
  /** The event's id; null when no event was mapped (mapping_failed). */
  readonly eventId: string | null;
  readonly type: string | null;
  readonly subject: string | null;
  readonly reason: UnroutedReason;
  /** The reason in words (the workflow and versions, the mapped field and the problem). */
  readonly detail: string;
  /**
   * What redelivery needs: the canonical event, or for mapping_failed the delivery
   * (`{hook, body, headers}`: the body as received, the headers the mapping may read, no signature).
   */
  readonly content: unknown;
  /** ISO-8601 time it was kept. */
  readonly at: string;
}

export interface UnroutedEvent extends Omit<NewUnrouted, 'at'> {
  /** ISO-8601 times it was first and last kept, and how often. */
  readonly receivedAt: string;
  readonly lastAt: string;
  readonly count: number;
  /** Set once a redelivery started runs: when, and their ids. It has then left the inbox. */
  readonly redelivered?: { readonly at: string; readonly runs: readonly string[] };
}

/** How much a tenant's inbox keeps: entries received before `keepAfter` and past `maxEntries` go, oldest first. */
export interface UnroutedLimits {
  readonly maxEntries: number;
  /** ISO-8601: entries received before it are dropped. */
  readonly keepAfter: string;
}

/** What keeping an entry did: the entry, and what the limits dropped (by which limit). */
export interface KeptUnrouted {
  readonly entry: UnroutedEvent;
  readonly dropped: { readonly age: number; readonly size: number };
}

export interface UnroutedInbox {
  /**
   * Keeps `e` (an entry of its id kept again is counted, its first content kept), then drops the
   * tenant's entries received before `limits.keepAfter` and, oldest first, past `limits.maxEntries`
   * (the new entry counts), in one transaction; answers how many each limit dropped.
   */
  keepUnrouted(e: NewUnrouted, limits: UnroutedLimits): Promise<KeptUnrouted>;
  getUnrouted(tenant: string, id: string): Promise<UnroutedEvent | undefined>;
  /**
   * The tenant's entries, the most recently received first: `waiting` (default) those still in the
   * inbox, `redelivered` those that left it, `all`; at most `limit` (1..500, default 100).
   */
  listUnrouted(
    tenant: string,
    q?: { readonly state?: 'waiting' | 'redelivered' | 'all'; readonly limit?: number },
  ): Promise<UnroutedEvent[]>;
  /**
   * Marks a waiting entry redelivered with the runs it started. Only one mark wins: answers the
   * entry as it is after (another redelivery's mark when it came first), undefined when there is none.
   */
  markRedelivered(
    tenant: string,
    id: string,
    runs: readonly string[],
    at: string,
  ): Promise<UnroutedEvent | undefined>;
}
